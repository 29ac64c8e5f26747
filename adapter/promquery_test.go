package adapter

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeVectorKeepsTheGroupLabelsAndValues(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"vector","result":[
		{"metric":{"name":"a","resource":"shoots","namespace":"garden"},"value":[1763899200.123,"12"]},
		{"metric":{"resource":"shoots"},"value":[1763899200.123,"NaN"]},
		{"value":[1763899200.123,"+Inf"],"metric":{"name":"c"}}
	]},"warnings":["ignored"]}`
	samples, err := decodeVector([]byte(body), []string{"name", "namespace"})
	require.NoError(t, err)
	require.Len(t, samples, 3)
	assert.Equal(t, promSample{group: []string{"a", "garden"}, value: 12}, samples[0])
	assert.Equal(t, []string{"", ""}, samples[1].group, "an absent label reads as empty")
	assert.True(t, math.IsNaN(samples[1].value))
	assert.Equal(t, promSample{group: []string{"c", ""}, value: math.Inf(1)}, samples[2], "field order does not matter")

	empty, err := decodeVector([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`), []string{"name"})
	require.NoError(t, err)
	assert.Empty(t, empty)

	// An external rule may group by nothing: one value, no labels kept, and still a value.
	ungrouped, err := decodeVector([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"},"value":[1763899200.123,"4.5"]}]}}`), nil)
	require.NoError(t, err)
	require.Len(t, ungrouped, 1)
	assert.Equal(t, 4.5, ungrouped[0].value)
	assert.Empty(t, ungrouped[0].group)
}

func TestDecodeVectorRefusesWhatIsNotAVector(t *testing.T) {
	for name, tt := range map[string]struct{ body, err string }{
		"prometheus error": {`{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, "bad_data: parse error at char 3"},
		"matrix":           {`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]]}]}}`, "a matrix, not a vector"},
		"not json":         {`<html>bad gateway</html>`, "not an API response"},
		"truncated":        {`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"},"value":[1,"1"]}`, "not an API response"},
		"bad value":        {`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"},"value":[1,"twelve"]}]}}`, `"twelve" is not a number`},
		"no value":         {`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"}}]}}`, "a sample without a value"},
		"no status":        {`{}`, `status "" and no error: not an answer of the query API`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := decodeVector([]byte(tt.body), []string{"name"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// BenchmarkDecodeVector decodes an answer of 1,000 samples as Prometheus sends one half of
// a list over 1,000 seeds: what a list costs the adapter in decoding, twice.
func BenchmarkDecodeVector(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i := range 1000 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"metric":{"name":"bench-%04d"},"value":[1763899200.123,"%d"]}`, i, i%250)
	}
	body.WriteString(`]}}`)
	raw := []byte(body.String())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		samples, err := decodeVector(raw, []string{"name"})
		if err != nil || len(samples) != 1000 {
			b.Fatalf("decoded %d samples: %v", len(samples), err)
		}
	}
}
