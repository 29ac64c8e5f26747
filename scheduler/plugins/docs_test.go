package plugins

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/scheduler.md lists the filters in the order Filters() applies them, and the
// preferences after them.
func TestDocsListTheFiltersInOrder(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "scheduler.md"))
	require.NoError(t, err)
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| [0-9]+ \\| `([A-Za-z]+)` \\|").FindAllStringSubmatch(string(data), -1) {
		documented = append(documented, m[1])
	}
	var names []string
	for _, f := range Filters() {
		names = append(names, f.Name())
	}
	assert.Equal(t, names, documented, "the filter table of docs/scheduler.md")
	for _, p := range Preferences() {
		assert.Regexp(t, "(?m)^\\| `"+p.Name()+"` \\|", string(data), "the preference table of docs/scheduler.md")
	}
}
