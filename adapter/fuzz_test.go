package adapter

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/common/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// docYAML returns the YAML blocks of docs/adapter.md: the configurations users copy.
func docYAML(f *testing.F) [][]byte {
	f.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "adapter.md"))
	require.NoError(f, err)
	var blocks [][]byte
	for _, block := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		blocks = append(blocks, block[1])
	}
	require.NotEmpty(f, blocks)
	return blocks
}

// configProblem is how every problem of a configuration that decodes starts: the path of
// its field (a rule's fields under the rule's index) and the kind of problem.
var configProblem = regexp.MustCompile(`^(apiVersion|kind|discovery\.(interval|retention)|values\.(cacheTTL|staleness)|rules|` +
	`(rules|externalRules)\[\d+\]\.(name|seriesQuery|resource(\.resource|\.group)?|objectLabel|namespaceLabel|groupBy\[\d+\]|parameters\[\d+\](\.name)?|window|metricName\.matches|metricsQuery)): ` +
	`(Required value|Invalid value|Unsupported value|Duplicate value|Forbidden)`)

// decodeProblem is what a file that does not decode is told: the line, the unknown field,
// or the field of a value of the wrong type.
var decodeProblem = regexp.MustCompile(`line \d+|unknown field "|Go struct field \w+\.\S+ of type`)

// FuzzParseConfig feeds the adapter's rules file parser anything: it never panics, a file
// it refuses is told what is wrong where, and a file it takes reads back the same once
// written out.
func FuzzParseConfig(f *testing.F) {
	f.Add(defaultRulesYAML)
	for _, block := range docYAML(f) {
		f.Add(block)
	}
	for _, s := range []string{
		"",
		"rules:\n- name: r\n  seriesQuery: 'foo{name!=\"\"}'\n  resource: {group: g, resource: seeds}\n  objectLabel: name\n",
		"rules:\n- name: r\n  seriesQuery: 'sum(foo'\n  resource: {group: g, resource: Seeds}\n  objectLabel: a.b\n  window: -1m\n",
		"rules:\n- {name: r, metricsQuery: '{{.Nope}}', metricName: {matches: '(a'}}\n",
		"externalRules:\n- name: e\n  seriesQuery: foo\n  groupBy: [a, a, 'b-c']\n  parameters: [{name: a, min: 5, max: 1}, {name: x, min: -1, max: 2000000000}]\n",
		"discovery: {interval: -1s, retention: 1s}\nvalues: {cacheTTL: -1s, staleness: -1s}\nrules: []\n",
		"discovery: {interval: soon}\n",
		"rules: {name: r}\n",
		"- rules\n",
		"rules:\n- name: \"a\\nb\"\n  metricsQuery: '{{.Series'\n",
		"apiVersion: v2\nkind: Other\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			msg := err.Error()
			if decoding, ok := strings.CutPrefix(msg, "parsing adapter configuration: "); ok {
				assert.Regexp(t, decodeProblem, decoding, "a decoding error names its line or field")
				return
			}
			for line := range strings.SplitSeq(msg, "\n") {
				assert.Regexp(t, configProblem, line, "every problem names its field")
			}
			return
		}
		// What the parser took, written out and read again, is the same configuration.
		out, err := yaml.Marshal(cfg)
		require.NoError(t, err)
		again, err := ParseConfig(out)
		require.NoError(t, err, "written out as\n%s", out)
		assert.Equal(t, withoutCompiled(cfg), withoutCompiled(again))
	})
}

// withoutCompiled is a configuration without the compiled queries, which compare by
// pointer, and with empty lists as none: `parameters: []` is no parameters.
func withoutCompiled(cfg *Config) Config {
	c := *cfg
	c.Rules = slices.Clone(c.Rules)
	for i := range c.Rules {
		c.Rules[i].query = querySpec{}
	}
	c.ExternalRules = slices.Clone(c.ExternalRules)
	for i := range c.ExternalRules {
		r := &c.ExternalRules[i]
		r.query = querySpec{}
		if len(r.GroupBy) == 0 {
			r.GroupBy = nil
		}
		if len(r.Parameters) == 0 {
			r.Parameters = nil
		}
	}
	return c
}

// FuzzDecodeVector feeds the reader of Prometheus' answers anything: it never panics, an
// answer it refuses is told why, and the samples it reads are read the same from the
// answer Prometheus would write for them.
func FuzzDecodeVector(f *testing.F) {
	for _, s := range []string{
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a","resource":"shoots","namespace":"garden"},"value":[1763899200.123,"12"]},{"metric":{"resource":"shoots"},"value":[1763899200.123,"NaN"]},{"value":[1763899200.123,"+Inf"],"metric":{"name":"c"}}]},"warnings":["ignored"]}`,
		`{"status":"success","data":{"resultType":"vector","result":[]}}`,
		`{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]]}]}}`,
		`{"status":"success","data":{"resultType":"scalar","result":[1763899200.123,"1"]}}`,
		`<html>bad gateway</html>`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"},"value":[1,"1"]}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"},"value":[1,"twelve"]}]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"a"}}]}}`,
		`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"name":"\u00e9\"x"},"value":[1,"-1e+308","extra"]}]}}`,
		`{}`,
		``,
		`null`,
	} {
		f.Add([]byte(s))
	}
	keep := []string{"name", "namespace"}
	f.Fuzz(func(t *testing.T, body []byte) {
		samples, err := decodeVector(body, keep)
		if err != nil {
			assert.NotEmpty(t, strings.Trim(err.Error(), ": "), "an error says what is wrong")
			return
		}
		for _, s := range samples {
			require.Len(t, s.group, len(keep))
		}
		again, err := decodeVector(vectorAnswer(samples, keep), keep)
		require.NoError(t, err)
		require.Len(t, again, len(samples))
		for i := range samples {
			assert.Equal(t, samples[i].group, again[i].group)
			assert.True(t, sameFloat(samples[i].value, again[i].value), "%v read back as %v", samples[i].value, again[i].value)
		}
	})
}

// vectorAnswer writes samples as Prometheus answers an instant query (a label that is
// empty is one a series does not have).
func vectorAnswer(samples []promSample, keep []string) []byte {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i, s := range samples {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"metric":{`)
		first := true
		for j, l := range keep {
			if s.group[j] == "" {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			fmt.Fprintf(&b, "%s:%s", strconv.Quote(l), jsonString(s.group[j]))
		}
		fmt.Fprintf(&b, `},"value":[1763899200.123,"%s"]}`, promFloat(s.value))
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// jsonString quotes s as JSON does: strconv.Quote's \x escapes are not JSON.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// promFloat formats a value as Prometheus writes sample values.
func promFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func sameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// clientConfigFields are the field names of a Prometheus client configuration, in every
// nested section: an error about the file names one of them, or a line.
func clientConfigFields() map[string]bool {
	fields := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || fields[t.String()] {
			return
		}
		fields[t.String()] = true
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				fields[name] = true
			}
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[config.HTTPClientConfig]())
	return fields
}

var words = regexp.MustCompile(`[a-z][a-z0-9_]*`)

// FuzzParseClientConfig feeds the reader of --prometheus-client-config anything: it never
// panics, and a file it refuses is told the line or the field.
func FuzzParseClientConfig(f *testing.F) {
	for _, block := range docYAML(f) {
		f.Add(block)
	}
	for _, s := range []string{
		"",
		"basic_auth: {username: a, passwrd_file: x}\n",
		"basic_auth: {username: a, password_file: missing}\n",
		"basic_auth: {username: a, password_ref: vault}\n",
		"authorization: {credentials_file: token}\nbasic_auth: {username: a, password: b}\n",
		"bearer_token_file: missing\n",
		"tls_config: {ca_file: ca.crt, min_version: TLS99}\n",
		"oauth2: {client_id: a, client_secret_file: password, token_url: 'http://x', tls_config: {key_file: nope}}\n",
		"http_headers: {X-Scope-OrgID: {values: [garden], files: [password, nope]}}\n",
		"proxy_url: '::not a url'\nfollow_redirects: maybe\n",
		"- tls_config\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	for _, name := range []string{"ca.crt", "password", "token"} {
		require.NoError(f, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600))
	}
	fields := clientConfigFields()
	f.Fuzz(func(t *testing.T, content []byte) {
		// The configuration names files the parser reads; device and kernel files are
		// read as the file asks, which is no question for the parser.
		for _, s := range []string{"dev", "proc", "sys", `\`} {
			if strings.Contains(string(content), s) {
				return // outside what the parser is given: names a device or kernel file, or escapes one
			}
		}
		if _, err := parseClientConfig(content, dir); err != nil {
			msg := err.Error()
			named := regexp.MustCompile(`line \d+`).MatchString(msg)
			for _, w := range words.FindAllString(msg, -1) {
				named = named || fields[w]
			}
			assert.True(t, named, "%q names neither a line nor a field", msg)
		}
	})
}

// FuzzExternalRequest feeds the metric label selector of an external metrics request to
// the rule with parameters: a request it refuses is told the parameter or the label, and
// one it takes becomes a query whose brackets balance (no value breaks out of its quotes)
// with every parameter within its bounds.
func FuzzExternalRequest(f *testing.F) {
	for _, s := range []string{
		"managedseedset=demo,lead_seconds=900,window_seconds=1800",
		"lead_seconds==60,window_seconds=86400",
		"managedseedset=demo,lead_seconds=900",
		"lead_seconds=14,window_seconds=1800",
		"lead_seconds in (60,120),window_seconds=1800",
		"lead_seconds,window_seconds=1800",
		"lead_seconds=900,window_seconds=1800,managedseedset in (a,b),!gone,name!=x,zone notin (z)",
		"lead_seconds=900,window_seconds=1800,a.b/c=d",
		"lead_seconds=900,window_seconds=1800,lead_seconds=901",
		"lead_seconds=900,window_seconds=1800,x>3",
	} {
		f.Add(s)
	}
	cfg, err := DefaultConfig()
	require.NoError(f, err)
	var rule *ExternalRule
	for i := range cfg.ExternalRules {
		if cfg.ExternalRules[i].Name == "managedseedset-demand-trend" {
			rule = &cfg.ExternalRules[i]
		}
	}
	require.NotNil(f, rule)
	f.Fuzz(func(t *testing.T, selector string) {
		sel, err := labels.Parse(selector)
		if err != nil {
			return // outside what the parser is given: the API server refuses the selector before the adapter sees it
		}
		params, rest, err := rule.query.takeParams(sel)
		if err != nil {
			assert.Regexp(t, `^parameter (lead_seconds|window_seconds)\b`, err.Error())
			return
		}
		for _, p := range rule.Parameters {
			assert.GreaterOrEqual(t, params[p.Name], p.Min)
			assert.LessOrEqual(t, params[p.Name], p.Max)
		}
		matchers, err := selectorMatchers(rest)
		if err != nil {
			assert.Contains(t, err.Error(), "metric label selector: ")
			return
		}
		q, err := buildValueQuery(&rule.query, "managedseedset:seedscaler_demand_shoots:sum", matchers, rule.GroupBy, params, true)
		require.NoError(t, err)
		assert.True(t, balanced(q.value), "%s", q.value)
		assert.True(t, balanced(q.timestamps), "%s", q.timestamps)
	})
}
