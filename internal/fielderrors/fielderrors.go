// Package fielderrors prints the problems of a configuration file the way users read them:
// one a line, each starting with the path of its field as Kubernetes names it
// (`rules[2].seriesQuery: Required value: ...`), so that a file with several problems is
// fixed in one go.
package fielderrors

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Join returns every problem of errs as one error, one a line; nil when there is none.
// Unlike errs.ToAggregate, which prints them in brackets on a single line, a long list
// stays readable, and errors.As still finds each *field.Error.
func Join(errs field.ErrorList) error {
	list := make([]error, len(errs))
	for i, err := range errs {
		list[i] = err
	}
	return errors.Join(list...)
}
