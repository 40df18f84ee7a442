// Copy buttons on the connect page. The page works without this file:
// the configurations are plain text to select.
document.addEventListener("DOMContentLoaded", function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () {
      var src = document.getElementById(b.dataset.copy);
      navigator.clipboard.writeText(src.textContent).then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = "Copy"; }, 2000);
      });
    });
  });
});
