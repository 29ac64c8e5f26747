package adapter

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// sampleParams are the values a template is rendered with before any request: each
// parameter at its largest, so that an offset computed from two of them stays positive.
func (q *querySpec) sampleParams() map[string]int64 {
	out := make(map[string]int64, len(q.params))
	for _, p := range q.params {
		out[p.Name] = p.Max
	}
	return out
}

// takeParams splits a request's label selector into the rule's parameters and the label
// matchers left. Every parameter is required, once, with =, as a whole number within its
// bounds; an error names the parameter and what it takes.
func (q *querySpec) takeParams(sel labels.Selector) (map[string]int64, labels.Selector, error) {
	if len(q.params) == 0 {
		return nil, sel, nil
	}
	declared := make(map[string]Parameter, len(q.params))
	for _, p := range q.params {
		declared[p.Name] = p
	}
	values := make(map[string]int64, len(q.params))
	rest := labels.NewSelector()
	var reqs labels.Requirements
	if sel != nil {
		reqs, _ = sel.Requirements()
	}
	for _, r := range reqs {
		p, ok := declared[r.Key()]
		if !ok {
			rest = rest.Add(r)
			continue
		}
		if _, twice := values[p.Name]; twice {
			return nil, nil, fmt.Errorf("parameter %s is given twice; pass it once, %s", p.Name, p.usage())
		}
		v, err := p.parse(r)
		if err != nil {
			return nil, nil, err
		}
		values[p.Name] = v
	}
	for _, p := range q.params {
		if _, ok := values[p.Name]; !ok {
			return nil, nil, fmt.Errorf("parameter %s is required: pass %s in the label selector", p.Name, p.usage())
		}
	}
	return values, rest, nil
}

// parse reads the parameter from its requirement.
func (p Parameter) parse(r labels.Requirement) (int64, error) {
	values := r.Values().List()
	if (r.Operator() != selection.Equals && r.Operator() != selection.DoubleEquals) || len(values) != 1 {
		return 0, fmt.Errorf("parameter %s takes one value with =, not %q; pass %s", p.Name, r.Operator(), p.usage())
	}
	v, err := strconv.ParseInt(values[0], 10, 64)
	if err != nil || v < p.Min || v > p.Max {
		return 0, fmt.Errorf("parameter %s=%q is not a whole number from %d to %d; pass %s", p.Name, values[0], p.Min, p.Max, p.usage())
	}
	return v, nil
}

// usage says how to pass the parameter.
func (p Parameter) usage() string {
	return fmt.Sprintf("%s=<whole number from %d to %d>", p.Name, p.Min, p.Max)
}
