package fielderrors

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestJoin(t *testing.T) {
	rules := field.NewPath("rules")
	tests := []struct {
		name string
		errs field.ErrorList
		want string // empty: no error
	}{
		{"none", nil, ""},
		{"an empty list", field.ErrorList{}, ""},
		{"one", field.ErrorList{field.Required(rules.Index(2).Child("seriesQuery"), "a series selector")},
			`rules[2].seriesQuery: Required value: a series selector`},
		{"one a line, in order", field.ErrorList{
			field.NotSupported(field.NewPath("kind"), "Foo", []string{"Bar"}),
			field.Invalid(rules.Index(0).Child("window"), "-1s", "must not be negative"),
		}, "kind: Unsupported value: \"Foo\": supported values: \"Bar\"\n" +
			`rules[0].window: Invalid value: "-1s": must not be negative`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Join(tt.errs)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestJoinKeepsEachFieldError(t *testing.T) {
	window := field.Invalid(field.NewPath("window"), "-1s", "must not be negative")
	err := Join(field.ErrorList{field.Required(field.NewPath("name"), ""), window})
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "name", fe.Field, "the first problem")
	assert.ErrorIs(t, err, window)
}
