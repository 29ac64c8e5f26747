package adapter

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seedscaler/seedscaler/internal/fielderrors"
)

// Paths of the two lists of rules: every error about a rule names its field under them,
// such as rules[2].seriesQuery.
var (
	rulesPath         = field.NewPath("rules")
	externalRulesPath = field.NewPath("externalRules")
)

// validate checks a defaulted configuration and compiles its rules.
func (c *Config) validate() field.ErrorList {
	var errs field.ErrorList
	if c.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), c.APIVersion, []string{APIVersion}))
	}
	if c.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), c.Kind, []string{Kind}))
	}
	discovery := field.NewPath("discovery")
	if c.Discovery.Interval.Duration < 0 {
		errs = append(errs, field.Invalid(discovery.Child("interval"), c.Discovery.Interval.Duration.String(), "must be positive, e.g. 30s"))
	}
	if c.Discovery.Retention.Duration < c.Discovery.Interval.Duration {
		errs = append(errs, field.Invalid(discovery.Child("retention"), c.Discovery.Retention.Duration.String(), fmt.Sprintf(
			"shorter than discovery.interval %s; a metric would drop out between two discoveries, make it at least the interval", c.Discovery.Interval.Duration)))
	}
	values := field.NewPath("values")
	if c.Values.CacheTTL.Duration < 0 {
		errs = append(errs, field.Invalid(values.Child("cacheTTL"), c.Values.CacheTTL.Duration.String(), "must not be negative; 0 disables the cache"))
	}
	if c.Values.Staleness.Duration < 0 {
		errs = append(errs, field.Invalid(values.Child("staleness"), c.Values.Staleness.Duration.String(), "must be positive, e.g. 2m"))
	}
	if len(c.Rules) == 0 && len(c.ExternalRules) == 0 {
		errs = append(errs, field.Required(rulesPath, "no rules and no externalRules; the adapter would serve nothing, add at least one rule"))
	}
	names := map[string]bool{}
	unique := func(path *field.Path, name, key string) {
		if key == "" {
			return
		}
		if names[key] {
			errs = append(errs, field.Duplicate(path, name))
		}
		names[key] = true
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		path := rulesPath.Index(i)
		unique(path.Child("name"), r.Name, r.Name)
		errs = append(errs, validateRule(path, r)...)
		errs = append(errs, r.compile(path)...)
	}
	for i := range c.ExternalRules {
		r := &c.ExternalRules[i]
		path := externalRulesPath.Index(i)
		unique(path.Child("name"), r.Name, "external/"+r.Name)
		errs = append(errs, validateExternalRule(path, r)...)
		errs = append(errs, r.compile(path)...)
	}
	return errs
}

// validateRule checks the fields of the rule at path that need no compiling.
func validateRule(path *field.Path, r *Rule) field.ErrorList {
	var errs field.ErrorList
	if r.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "names the rule in logs"))
	}
	errs = append(errs, validateSeriesQuery(path.Child("seriesQuery"), r.SeriesQuery)...)
	resource := path.Child("resource")
	if r.Resource.Resource == "" {
		errs = append(errs, field.Required(resource.Child("resource"), "the plural resource name, e.g. seeds"))
	} else if r.Resource.Resource != strings.ToLower(r.Resource.Resource) {
		errs = append(errs, field.Invalid(resource.Child("resource"), r.Resource.Resource, "must be the lower-case plural resource name, e.g. seeds"))
	}
	if r.Resource.Group == "" {
		errs = append(errs, field.Required(resource.Child("group"), "the API group, e.g. core.gardener.cloud"))
	}
	if r.ObjectLabel == "" {
		errs = append(errs, field.Required(path.Child("objectLabel"), "the series label holding the object's name, e.g. name"))
	} else {
		errs = append(errs, validateLabelName(path.Child("objectLabel"), r.ObjectLabel)...)
	}
	if r.NamespaceLabel != "" {
		errs = append(errs, validateLabelName(path.Child("namespaceLabel"), r.NamespaceLabel)...)
	}
	return append(errs, validateWindow(path.Child("window"), r.Window.Duration)...)
}

// validateExternalRule checks the fields of the external rule at path that need no
// compiling.
func validateExternalRule(path *field.Path, r *ExternalRule) field.ErrorList {
	var errs field.ErrorList
	if r.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), "names the rule in logs"))
	}
	errs = append(errs, validateSeriesQuery(path.Child("seriesQuery"), r.SeriesQuery)...)
	if r.NamespaceLabel != "" {
		errs = append(errs, validateLabelName(path.Child("namespaceLabel"), r.NamespaceLabel)...)
	}
	seen := map[string]bool{}
	for j, l := range r.GroupBy {
		switch {
		case !model.LegacyValidation.IsValidLabelName(l):
			errs = append(errs, field.Invalid(path.Child("groupBy").Index(j), l, "not a Prometheus label name"))
		case seen[l]:
			errs = append(errs, field.Duplicate(path.Child("groupBy").Index(j), l))
		}
		seen[l] = true
	}
	errs = append(errs, validateParameters(path.Child("parameters"), r)...)
	return append(errs, validateWindow(path.Child("window"), r.Window.Duration)...)
}

// validateLabelName checks that a label a rule names, at path, is a Prometheus label name.
func validateLabelName(path *field.Path, name string) field.ErrorList {
	if model.LegacyValidation.IsValidLabelName(name) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, name, "not a Prometheus label name")}
}

// validateWindow checks a rule's window: 0 for gauges, else the range its query computes
// over.
func validateWindow(path *field.Path, window time.Duration) field.ErrorList {
	if window < 0 {
		return field.ErrorList{field.Invalid(path, window.String(), "must not be negative")}
	}
	return nil
}

// maxParameter bounds a parameter's values, so that no parameter renders a number PromQL
// reads differently (an exponent, an overflow).
const maxParameter = 1_000_000_000

// validateParameters checks the parameters of an external rule, at path: each a label
// selector key of its own, with bounds a query can use.
func validateParameters(path *field.Path, r *ExternalRule) field.ErrorList {
	var errs field.ErrorList
	taken := map[string]bool{r.NamespaceLabel: r.NamespaceLabel != ""}
	for _, l := range r.GroupBy {
		taken[l] = true
	}
	for j, p := range r.Parameters {
		switch {
		case !model.LegacyValidation.IsValidLabelName(p.Name):
			errs = append(errs, field.Invalid(path.Index(j).Child("name"), p.Name, "not a Prometheus label name, e.g. lead_seconds"))
		case taken[p.Name]:
			errs = append(errs, field.Invalid(path.Index(j).Child("name"), p.Name, "a label of the series or listed twice; a parameter needs a key of its own"))
		case p.Min < 0 || p.Max < p.Min || p.Max > maxParameter:
			errs = append(errs, field.Invalid(path.Index(j), field.OmitValueType{},
				fmt.Sprintf("min %d and max %d must satisfy 0 <= min <= max <= %d", p.Min, p.Max, maxParameter)))
		}
		taken[p.Name] = true
	}
	return errs
}

// seriesSelector is the shape of a PromQL series selector: an optional metric name and an
// optional brace-enclosed matcher list. Prometheus checks the matchers themselves at the
// first discovery, which fails start-up when Prometheus rejects the selector.
var seriesSelector = regexp.MustCompile(`^\s*(?:[a-zA-Z_:][a-zA-Z0-9_:]*\s*)?(?:\{.*\})?\s*$`)

// validateSeriesQuery checks that a rule's seriesQuery, at path, has the shape of a series
// selector.
func validateSeriesQuery(path *field.Path, q string) field.ErrorList {
	if strings.TrimSpace(q) == "" {
		return field.ErrorList{field.Required(path, `a series selector such as {__name__=~"garden_seed_.+"}`)}
	}
	if !seriesSelector.MatchString(q) || !balanced(q) {
		return field.ErrorList{field.Invalid(path, q, `not a series selector; write a metric name and/or matchers in braces, such as {__name__=~"garden_seed_.+"}`)}
	}
	return nil
}

// ResolveResources checks every rule's group and resource against the cluster's API and
// that its namespace label fits the resource's scope, and returns the resource of each
// rule's group/resource.
func (c *Config) ResolveResources(mapper apimeta.RESTMapper) (map[schema.GroupResource]schema.GroupVersionResource, error) {
	resources := map[schema.GroupResource]schema.GroupVersionResource{}
	var errs field.ErrorList
	for i := range c.Rules {
		r := &c.Rules[i]
		path := rulesPath.Index(i)
		gr := r.GroupResource()
		gvr, err := mapper.ResourceFor(gr.WithVersion(""))
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("resource"), gr.String(),
				fmt.Sprintf("not served by the cluster (unknown group or resource; is its CRD installed?): %v", err)))
			continue
		}
		gvk, err := mapper.KindFor(gvr)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("resource"), gr.String(), err.Error()))
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("resource"), gr.String(), err.Error()))
			continue
		}
		namespaced := mapping.Scope.Name() == apimeta.RESTScopeNameNamespace
		switch {
		case namespaced && !r.Namespaced():
			errs = append(errs, field.Required(path.Child("namespaceLabel"), fmt.Sprintf("%s is namespaced; name the series label holding the namespace", gr)))
		case !namespaced && r.Namespaced():
			errs = append(errs, field.Forbidden(path.Child("namespaceLabel"), fmt.Sprintf("%s is cluster-scoped; remove namespaceLabel", gr)))
		}
		resources[gr] = gvr
	}
	if err := fielderrors.Join(errs); err != nil {
		return nil, err
	}
	return resources, nil
}
