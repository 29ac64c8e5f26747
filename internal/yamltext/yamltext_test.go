package yamltext

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"plain", "a: b\n\tc: \"é ü 日本 😀\"\r\n", ""},
		{"byte order mark", "\ufeffa: b\n", ""},
		{"empty", "", ""},
		{"not UTF-8", "a: b\nc: d\x85e\n", "line 2, column 5: byte 0x85 is not UTF-8"},
		{"NUL", "a: b\x00\n", "line 1, column 5: character U+0000 is not allowed in YAML"},
		{"escape", "a: b\n\n  \x1b[1m", "line 3, column 3: character U+001B is not allowed"},
		{"DEL", "a: \"\x7f\"", "line 1, column 5: character U+007F"},
		{"C1 control", "a: \u0090", "line 1, column 4: character U+0090"},
		{"surrogate", "a: \xed\xa0\x80", "line 1, column 4: byte 0xed is not UTF-8"},
		{"noncharacter", "a: \uffff", "line 1, column 4: character U+FFFF"},
		{"UTF-16", "\xff\xfea\x00", "line 1, column 1: byte 0xff is not UTF-8"},
		{"columns count characters", "ä: ö\x01", "line 1, column 5: character U+0001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.text))
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// FuzzCheck holds Check and Locate to the YAML parser: whatever Check refuses it names by
// line and column, and every error the parser gives for what Check takes names a line.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"a: b\n", "a: \x01", "\xff", "a: \"\u2028\"\n", "a: b\u0085c\n", "- \t\r\n", "!%80", "a: &a [*a]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := Check(data); err != nil {
			assert.Regexp(t, `^line \d+, column \d+: `, err.Error())
			return
		}
		if err := Locate(data, decodeAny(data), decodeAny); err != nil {
			assert.Regexp(t, hasLine, err.Error())
		}
	})
}

func TestLocate(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"syntax on the first line", "a: b: c\nd: e\n", "line 1: "},
		{"tag escape", "!%80\n", "line 1: "},
		{"recursive alias", "a: 1\nb: &x [*x]\nc: 2\n", "line 2: "},
		{"unknown alias", "a: 1\n\nb: *nope\n", "line 3: "},
		{"named already", "a: b\nc: [d\n", "line 2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeAny([]byte(tt.text))
			require.Error(t, err)
			located := Locate([]byte(tt.text), err, decodeAny)
			assert.Contains(t, located.Error(), tt.want)
			assert.Contains(t, located.Error(), err.Error(), "the parser's own words stay")
			assert.ErrorIs(t, located, err)
		})
	}
	assert.NoError(t, Locate([]byte("a: b"), nil, decodeAny))

	// A field's own decoder: the line of the value it refuses.
	type file struct {
		Interval metav1.Duration `json:"interval"`
		Name     string          `json:"name"`
	}
	decodeFile := func(data []byte) error { return yaml.UnmarshalStrict(data, &file{}) }
	text := []byte("name: a\n# soon\ninterval: soon\n")
	err := decodeFile(text)
	require.Error(t, err)
	assert.Equal(t, "line 3: "+err.Error(), Locate(text, err, decodeFile).Error())
}

func decodeAny(data []byte) error {
	var doc any
	return yaml.Unmarshal(data, &doc)
}
