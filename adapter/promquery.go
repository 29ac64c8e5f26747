package adapter

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jsoniter "github.com/json-iterator/go"
	promapi "github.com/prometheus/client_golang/api"
)

// promSample is one element of an instant vector: its labels and value. The evaluation
// timestamp Prometheus puts next to it says nothing about the data and is dropped.
type promSample struct {
	labels map[string]string
	value  float64
}

// instantQuerier runs instant queries and decodes the vector lean: a list over a thousand
// seeds returns two thousand samples, and the generic decoder of the v1 API client spent
// more time on them than Prometheus took to answer.
type instantQuerier struct {
	client promapi.Client
}

// queryResponse is the body of /api/v1/query.
type queryResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			// Value is [evaluation time, "value"].
			Value [2]jsoniter.RawMessage `json:"value"`
		} `json:"result"`
	} `json:"data"`
}

var leanJSON = jsoniter.ConfigFastest

func (q *instantQuerier) query(ctx context.Context, promQL string, at time.Time) ([]promSample, error) {
	u := q.client.URL("/api/v1/query", nil)
	form := url.Values{"query": {promQL}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', -1, 64)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, body, err := q.client.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	var r queryResponse
	if err := leanJSON.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("prometheus answered %s with a body that is not an API response: %w", resp.Status, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("prometheus answered %s: %s: %s", resp.Status, r.ErrorType, r.Error)
	}
	if r.Data.ResultType != "vector" {
		return nil, fmt.Errorf("prometheus answered a %s, not a vector", r.Data.ResultType)
	}
	samples := make([]promSample, len(r.Data.Result))
	for i, s := range r.Data.Result {
		var text string
		if err := leanJSON.Unmarshal(s.Value[1], &text); err != nil {
			return nil, fmt.Errorf("prometheus answered a sample value that is not a string: %s", s.Value[1])
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("prometheus answered a sample value that is not a number: %q", text)
		}
		samples[i] = promSample{labels: s.Metric, value: v}
	}
	return samples, nil
}
