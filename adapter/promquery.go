package adapter

import (
	"bytes"
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
	"unicode/utf8"

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
	// endpoint is Prometheus' /api/v1/query, as the client_golang API client builds it.
	endpoint string
	// http sends the queries. The answers are read here rather than by the API client's
	// Do, which reads each one into a buffer grown from nothing (and in a goroutine of
	// its own): two answers of ~100 KB a list, a fifth of what the adapter allocated.
	http *http.Client
	// answers are buffers for the answers, reused from one query to the next.
	answers sync.Pool
}

// maxReusedAnswer is the largest buffer kept for reuse: an answer over tens of thousands
// of series is read into a buffer of its own and left to the garbage collector.
const maxReusedAnswer = 4 << 20

func newInstantQuerier(prom promapi.Client, hc *http.Client) *instantQuerier {
	return &instantQuerier{endpoint: prom.URL("/api/v1/query", nil).String(), http: hc}
}

var leanJSON = jsoniter.ConfigFastest

func (q *instantQuerier) query(ctx context.Context, promQL string, at time.Time, keep []string) ([]promSample, error) {
	form := url.Values{"query": {promQL}, "time": {strconv.FormatFloat(float64(at.UnixMilli())/1000, 'f', -1, 64)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, q.endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := q.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, _ := q.answers.Get().(*bytes.Buffer)
	if answer == nil {
		answer = new(bytes.Buffer)
	}
	defer func() {
		if answer.Cap() <= maxReusedAnswer {
			answer.Reset()
			q.answers.Put(answer)
		}
	}()
	if _, err := answer.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("reading the answer of Prometheus (%s): %w", resp.Status, err)
	}
	if err := refusedCredentials(resp, answer.Bytes()); err != nil {
		return nil, err
	}
	samples, err := decodeVector(answer.Bytes(), keep)
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
	valued := true
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
					samples, valued = readSamples(iter, keep)
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
		if errorType == "" && errorText == "" {
			return nil, fmt.Errorf("status %q and no error: not an answer of the query API", status)
		}
		return nil, fmt.Errorf("%s: %s", errorType, errorText)
	}
	if resultType != "vector" {
		return nil, fmt.Errorf("a %s, not a vector", resultType)
	}
	if !valued {
		return nil, errors.New("a sample without a value")
	}
	// JSON is UTF-8, and so is every label value Prometheus stores: bytes that are not are
	// no answer of Prometheus, and would name an object that does not exist.
	for _, s := range samples {
		for i, v := range s.group {
			if !utf8.ValidString(v) {
				return nil, fmt.Errorf("label %s of a sample is not valid UTF-8 (%q): not an answer of Prometheus", keep[i], v)
			}
		}
	}
	return samples, nil
}

// readSamples reads the result array of a vector, and whether every sample held a
// number, for decodeVector to refuse an answer that did not once it knows the result type.
// The group values of all samples share one slice, and a value is parsed where it lies in
// the answer: a sample costs the one string of each kept label.
func readSamples(iter *jsoniter.Iterator, keep []string) ([]promSample, bool) {
	var (
		samples []promSample
		groups  []string // len(keep) values for each sample, in order
		valued  = true
	)
	for iter.ReadArray() {
		first := len(groups)
		for range keep {
			groups = append(groups, "")
		}
		value, ok := 0.0, false
		for field := iter.ReadObject(); field != ""; field = iter.ReadObject() {
			switch field {
			case "metric":
				for name := iter.ReadObject(); name != ""; name = iter.ReadObject() {
					if i := slices.Index(keep, name); i >= 0 {
						groups[first+i] = iter.ReadString()
					} else {
						iter.Skip()
					}
				}
			case "value":
				value, ok = readSampleValue(iter)
			default:
				iter.Skip()
			}
		}
		samples = append(samples, promSample{value: value})
		valued = valued && ok
	}
	k := len(keep)
	for i := range samples {
		samples[i].group = groups[i*k : (i+1)*k : (i+1)*k]
	}
	return samples, valued
}

// readSampleValue reads [evaluation time, "value"] and reports whether it held a number.
// The value is a number written as a JSON string ("12", "NaN", "+Inf", "1e+06"): no escapes,
// so it is parsed in place, without a string of its own.
func readSampleValue(iter *jsoniter.Iterator) (float64, bool) {
	value, ok := 0.0, false
	if iter.ReadArray() {
		iter.Skip()
	}
	if iter.ReadArray() {
		text := iter.ReadStringAsSlice()
		v, err := strconv.ParseFloat(string(text), 64)
		if err != nil {
			iter.ReportError("reading a sample value", fmt.Sprintf("%q is not a number", text))
		}
		value, ok = v, err == nil
	}
	for iter.ReadArray() {
		iter.Skip()
	}
	return value, ok
}
