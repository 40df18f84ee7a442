// Command httpcheck is the healthcheck of images that have no shell and
// no wget (the Jaeger image is FROM scratch): it GETs each URL given and
// exits 0 when every one answers 2xx within five seconds, else 1, saying
// why on stderr. It uses the standard library only, so an image builds it
// from this one file.
package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: httpcheck URL...")
		os.Exit(2)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, u := range os.Args[1:] {
		if err := check(client, u); err != nil {
			fmt.Fprintln(os.Stderr, "httpcheck:", err)
			os.Exit(1)
		}
	}
}

func check(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
