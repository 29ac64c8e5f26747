package adapter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	jsoniter "github.com/json-iterator/go"
	promapi "github.com/prometheus/client_golang/api"
)

// promSample is one element of an instant vector: the values of the labels asked for and
// its value. The evaluation timestamp Prometheus puts next to it says nothing about the
// data and is dropped, as are the other labels.
type promSample struct {
	// group are the values of the labels asked for, in their order; "" when absent.
	group []string
	value float64
}

// instantQuerier runs instant queries and reads the vector as it streams in, keeping only
// the labels a result is keyed by: a list over a thousand seeds returns two thousand
// samples, and decoding them into the v1 API client's generic model (or into a map of
// labels per sample) cost more CPU than Prometheus took to answer.
type instantQuerier struct {
	client promapi.Client
}

var leanJSON = jsoniter.ConfigFastest

func (q *instantQuerier) query(ctx context.Context, promQL string, at time.Time, keep []string) ([]promSample, error) {
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
	samples, err := decodeVector(body, keep)
	if err != nil {
		return nil, fmt.Errorf("prometheus answered %s: %w", resp.Status, err)
	}
	return samples, nil
}

// values runs the two halves of a value query side by side, evaluated at the same time.
func (q *instantQuerier) values(ctx context.Context, vq valueQuery, at time.Time) (vectors, error) {
	var (
		out                    vectors
		valueErr, timestampErr error
		wg                     sync.WaitGroup
	)
	wg.Go(func() { out.values, valueErr = q.query(ctx, vq.value, at, vq.groupBy) })
	out.timestamps, timestampErr = q.query(ctx, vq.timestamps, at, vq.groupBy)
	wg.Wait()
	// When Prometheus is away both fail alike; one error says it.
	if err := cmp.Or(valueErr, timestampErr); err != nil {
		return vectors{}, err
	}
	return out, nil
}

// decodeVector reads the body of /api/v1/query: an error Prometheus reports, or the
// samples of an instant vector with the values of the labels in keep.
func decodeVector(body []byte, keep []string) ([]promSample, error) {
	iter := leanJSON.BorrowIterator(body)
	defer leanJSON.ReturnIterator(iter)
	var status, errorType, errorText, resultType string
	var samples []promSample
	for field := iter.ReadObject(); field != ""; field = iter.ReadObject() {
		switch field {
		case "status":
			status = iter.ReadString()
		case "errorType":
			errorType = iter.ReadString()
		case "error":
			errorText = iter.ReadString()
		case "data":
			for field := iter.ReadObject(); field != ""; field = iter.ReadObject() {
				switch field {
				case "resultType":
					resultType = iter.ReadString()
				case "result":
					samples = readSamples(iter, keep)
				default:
					iter.Skip()
				}
			}
		default:
			iter.Skip()
		}
	}
	if iter.Error != nil && !errors.Is(iter.Error, io.EOF) {
		return nil, fmt.Errorf("a body that is not an API response: %w", iter.Error)
	}
	if status != "success" {
		return nil, fmt.Errorf("%s: %s", errorType, errorText)
	}
	if resultType != "vector" {
		return nil, fmt.Errorf("a %s, not a vector", resultType)
	}
	for _, s := range samples {
		if s.group == nil {
			return nil, errors.New("a sample without a value")
		}
	}
	return samples, nil
}

// readSamples reads the result array of a vector. A sample whose value cannot be read is
// returned with a nil group, for decodeVector to refuse once it knows the result type.
func readSamples(iter *jsoniter.Iterator, keep []string) []promSample {
	var samples []promSample
	for iter.ReadArray() {
		group := make([]string, len(keep))
		value, valued := 0.0, false
		for field := iter.ReadObject(); field != ""; field = iter.ReadObject() {
			switch field {
			case "metric":
				for name := iter.ReadObject(); name != ""; name = iter.ReadObject() {
					v := iter.ReadString()
					if i := slices.Index(keep, name); i >= 0 {
						group[i] = v
					}
				}
			case "value":
				// [evaluation time, "value"]
				if iter.ReadArray() {
					iter.Skip()
				}
				if iter.ReadArray() {
					text := iter.ReadString()
					v, err := strconv.ParseFloat(text, 64)
					if err != nil {
						iter.ReportError("reading a sample value", fmt.Sprintf("%q is not a number", text))
					}
					value, valued = v, err == nil
				}
				for iter.ReadArray() {
					iter.Skip()
				}
			default:
				iter.Skip()
			}
		}
		if !valued {
			group = nil
		}
		samples = append(samples, promSample{group: group, value: value})
	}
	return samples
}
