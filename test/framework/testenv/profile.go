package testenv

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

// SaveProfile sends req, a request for a Go server's /debug/pprof endpoint, with c and
// writes the answer to path: a profile of the server for `go tool pprof`.
func SaveProfile(c *http.Client, req *http.Request, path string) error {
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("requesting %s: %w", req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading %s: %w", req.URL.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d: %s", req.URL.Path, resp.StatusCode, raw)
	}
	return os.WriteFile(path, raw, 0o644)
}
