package promrunner

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
)

// Series is one series of an instant query's answer: its labels and its value.
type Series struct {
	Labels map[string]string
	Value  float64
}

// Query runs an instant query on the runner's Prometheus, as the runner's own client, and
// returns the series of the answer; a scalar answer is one series without labels.
func (p *Prometheus) Query(query string) ([]Series, error) {
	resp, err := p.http.Get(p.URL + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read whole below; nothing is lost
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, fmt.Errorf("decoding the answer to %s: %w", query, err)
	}
	if answer.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", query, answer.Error)
	}
	type sample struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	var samples []sample
	switch answer.Data.ResultType {
	case "scalar":
		var s sample
		if err := json.Unmarshal(answer.Data.Result, &s.Value); err != nil {
			return nil, fmt.Errorf("decoding the scalar answer to %s: %w", query, err)
		}
		samples = []sample{s}
	case "vector":
		if err := json.Unmarshal(answer.Data.Result, &samples); err != nil {
			return nil, fmt.Errorf("decoding the vector answer to %s: %w", query, err)
		}
	default:
		return nil, fmt.Errorf("query %s: a %s answer, not an instant vector or scalar", query, answer.Data.ResultType)
	}
	out := make([]Series, 0, len(samples))
	for _, s := range samples {
		text, ok := s.Value[1].(string)
		if !ok {
			return nil, fmt.Errorf("query %s: value %v is not a string", query, s.Value[1])
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %q: %w", query, text, err)
		}
		out = append(out, Series{Labels: s.Metric, Value: v})
	}
	return out, nil
}
