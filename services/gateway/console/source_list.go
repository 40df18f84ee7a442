package console

import (
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/openhuman-go/openhuman-go/pkg/contract"
)

// source is a source as tree.list_sources lists it.
type source = contract.SourceRow

// sourcesPerPage bounds a page of the sources list: a folder ingested
// once is hundreds of files.
const sourcesPerPage = 50

// folderRow is a folder holding ingested files: how many, with how many
// items, and when one last changed.
type folderRow struct {
	Folder       string
	Sources      int
	Items        int
	MostRecentMS int64
}

type sourceListData struct {
	Query, Folder string
	// Folders group the files of the page's sources by the folder they
	// are in; Others are the sources that are no file (clients,
	// conversations) or, in a folder or a search, every source.
	Folders     []folderRow
	Others      []source
	Total       int
	Prev, Next  string // links to the neighbouring pages, "" at an end
	ShownFrom   int
	ShownTo     int
	FolderItems int
}

// sourceList lists the sources memory holds items of (tree.list_sources):
// at the top, files grouped by folder and the other sources one by one;
// in a folder (?folder=), its files; with ?q=, the sources whose name
// holds q. Each list is paged.
func (c *Console) sourceList(w http.ResponseWriter, r *http.Request) {
	var res contract.SourceList
	if err := c.call(r, contract.TreeListSources.RPC, map[string]any{}, &res); err != nil {
		c.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	d := sourceListData{Query: strings.TrimSpace(q.Get("q")), Folder: strings.TrimSuffix(strings.TrimSpace(q.Get("folder")), "/")}
	rows := res.Sources
	switch {
	case d.Query != "":
		rows = matching(rows, d.Query)
	case d.Folder != "":
		rows = under(rows, d.Folder)
		for _, s := range rows {
			d.FolderItems += s.ChunkCount
		}
	default:
		d.Folders, rows = grouped(rows)
	}
	page, _ := strconv.Atoi(q.Get("page"))
	d.page(rows, max(page, 1), r)
	c.render(w, r, http.StatusOK, "sources", view{Title: "Sources", Nav: "sources", Data: d})
}

// page keeps the rows of page n and links its neighbours.
func (d *sourceListData) page(rows []source, n int, r *http.Request) {
	d.Total = len(rows) + len(d.Folders)
	start := min((n-1)*sourcesPerPage, len(rows))
	end := min(start+sourcesPerPage, len(rows))
	d.Others, d.ShownFrom, d.ShownTo = rows[start:end], start+1, end
	link := func(p int) string {
		v := r.URL.Query()
		v.Set("page", strconv.Itoa(p))
		return "/console/sources?" + v.Encode()
	}
	if n > 1 {
		d.Prev = link(n - 1)
	}
	if end < len(rows) {
		d.Next = link(n + 1)
	}
}

// isFile reports a source that is an ingested file: its id is its path.
func isFile(s source) bool { return strings.HasPrefix(s.SourceID, "/") }

// grouped sums the files by folder, biggest first, and returns the other
// sources apart.
func grouped(all []source) ([]folderRow, []source) {
	byFolder := map[string]*folderRow{}
	var others []source
	for _, s := range all {
		if !isFile(s) {
			others = append(others, s)
			continue
		}
		dir := path.Dir(s.SourceID)
		f := byFolder[dir]
		if f == nil {
			f = &folderRow{Folder: dir}
			byFolder[dir] = f
		}
		f.Sources++
		f.Items += s.ChunkCount
		f.MostRecentMS = max(f.MostRecentMS, s.MostRecentMS)
	}
	folders := make([]folderRow, 0, len(byFolder))
	for _, f := range byFolder {
		folders = append(folders, *f)
	}
	slices.SortFunc(folders, func(a, b folderRow) int {
		if a.Items != b.Items {
			return b.Items - a.Items
		}
		return strings.Compare(a.Folder, b.Folder)
	})
	return folders, others
}

// under keeps the sources in folder or below it, by path, as a file
// manager lists them.
func under(all []source, folder string) []source {
	var out []source
	for _, s := range all {
		if strings.HasPrefix(s.SourceID, folder+"/") {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b source) int { return strings.Compare(a.SourceID, b.SourceID) })
	return out
}

// matching keeps the sources whose id or name holds q, in any case.
func matching(all []source, q string) []source {
	q = strings.ToLower(q)
	var out []source
	for _, s := range all {
		if strings.Contains(strings.ToLower(s.SourceID), q) || strings.Contains(strings.ToLower(s.DisplayName), q) {
			out = append(out, s)
		}
	}
	return out
}
