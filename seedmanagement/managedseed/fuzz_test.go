package managedseed

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseDefaultCapacity feeds --default-seed-capacity anything: a value it refuses is
// told the part it cannot read, and a list it takes reads back the same written as
// name=quantity pairs.
func FuzzParseDefaultCapacity(f *testing.F) {
	for _, s := range []string{"250", "shoots=250", "shoots=100, persistent-volumes=1k", "80,persistent-volumes=200", "",
		"many", "shoots=-1", "=3", "250,shoots=10", "shoots=92E3372036854775807", "a=1,,b=2", "shoots=1=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		list, err := ParseDefaultCapacity(value)
		if err != nil {
			named := false
			for item := range strings.SplitSeq(value, ",") {
				named = named || strings.HasPrefix(err.Error(), strconv.Quote(strings.TrimSpace(item)))
			}
			assert.True(t, named, "%q names no part of %q", err, value)
			return
		}
		var pairs []string
		for name, q := range list {
			assert.GreaterOrEqual(t, q.Sign(), 0)
			pairs = append(pairs, string(name)+"="+q.String())
		}
		slices.Sort(pairs)
		again, err := ParseDefaultCapacity(strings.Join(pairs, ","))
		require.NoError(t, err, "written as %s", strings.Join(pairs, ","))
		require.Len(t, again, len(list))
		for name, q := range list {
			assert.Zero(t, q.Cmp(again[name]), "%s", name)
		}
	})
}
