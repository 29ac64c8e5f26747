// Command chartrbac turns controller-gen's RBAC output of each part of the chart,
// charts/seedscaler/files/rbac/<part>/role.yaml (from the +kubebuilder:rbac markers beside
// the part's code), into the chart template charts/seedscaler/templates/<part>/rbac-generated.yaml:
// the part's ClusterRole and its Roles, with the release's names, labels and namespaces
// templated, so that the chart renders RBAC like any other object instead of parsing
// controller-gen's files at install time. `make generate` runs it after controller-gen.
//
//	go run ./hack/chartrbac [--rbac DIR] [--templates DIR]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// generatedFile is the template written into templates/<part>/.
const generatedFile = "rbac-generated.yaml"

func main() {
	rbacDir := flag.String("rbac", "charts/seedscaler/files/rbac", "controller-gen's output: one folder per part holding role.yaml")
	templatesDir := flag.String("templates", "charts/seedscaler/templates", "the chart's templates: one folder per part receives "+generatedFile)
	flag.Parse()
	if err := run(*rbacDir, *templatesDir); err != nil {
		fmt.Fprintln(os.Stderr, "chartrbac:", err)
		os.Exit(1)
	}
}

// run writes the template of every part under rbacDir, and removes the template of a part
// that has no RBAC output any more.
func run(rbacDir, templatesDir string) error {
	entries, err := os.ReadDir(rbacDir)
	if err != nil {
		return err
	}
	parts := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		part := e.Name()
		parts[part] = true
		data, err := os.ReadFile(filepath.Join(rbacDir, part, "role.yaml"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// No role.yaml: the part's packages have no markers (or are not there yet), and
		// its ClusterRole holds only the rules every part has.
		rbac, err := parse(data)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(rbacDir, part, "role.yaml"), err)
		}
		out, err := render(part, rbac)
		if err != nil {
			return err
		}
		dir := filepath.Join(templatesDir, part)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, generatedFile), out, 0o644); err != nil {
			return err
		}
	}
	stale, err := filepath.Glob(filepath.Join(templatesDir, "*", generatedFile))
	if err != nil {
		return err
	}
	for _, path := range stale {
		if !parts[filepath.Base(filepath.Dir(path))] {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// rbac is what a part's markers grant: cluster-wide rules, and rules per namespace.
type rbac struct {
	clusterRules []rbacv1.PolicyRule
	roles        []role
}

// role holds the rules of the markers with one namespace=, a real namespace or a
// placeholder the chart replaces (seedscaler.roleTargets in templates/_parts.tpl).
type role struct {
	namespace string
	rules     []rbacv1.PolicyRule
}

// generatedObject is a ClusterRole or Role as controller-gen writes it.
type generatedObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Rules             []rbacv1.PolicyRule `json:"rules"`
}

// parse reads controller-gen's output: at most one ClusterRole, and Roles of distinct
// namespaces, sorted by namespace.
func parse(data []byte) (rbac, error) {
	var out rbac
	var clusterRoles int
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj generatedObject
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return rbac{}, err
		}
		switch obj.Kind {
		case "":
			continue // an empty document
		case "ClusterRole":
			clusterRoles++
			if clusterRoles > 1 {
				return rbac{}, fmt.Errorf("a second ClusterRole, %s: give the part's packages one roleName", obj.Name)
			}
			out.clusterRules = obj.Rules
		case "Role":
			if obj.Namespace == "" {
				return rbac{}, fmt.Errorf("role %s has no namespace: a marker with namespace= makes a Role", obj.Name)
			}
			if slices.ContainsFunc(out.roles, func(r role) bool { return r.namespace == obj.Namespace }) {
				return rbac{}, fmt.Errorf("two Roles in namespace %s", obj.Namespace)
			}
			out.roles = append(out.roles, role{namespace: obj.Namespace, rules: obj.Rules})
		default:
			return rbac{}, fmt.Errorf("kind %q: controller-gen writes ClusterRoles and Roles only", obj.Kind)
		}
	}
	slices.SortFunc(out.roles, func(a, b role) int { return strings.Compare(a.namespace, b.namespace) })
	return out, nil
}

// partName is what a part may be called: it becomes a template name and an object name.
var partName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// render writes the chart template of a part's RBAC: the namespaces its markers name (as the
// named template seedscaler.<part>.markerNamespaces, which seedscaler.namespacedRoles reads
// to bind the Roles and create their namespaces), and, while the part is enabled, its
// ClusterRole (its markers' rules, then seedscaler.everyPartsRules) and its Roles where
// seedscaler.roleTargets puts them.
func render(part string, r rbac) ([]byte, error) {
	if !partName.MatchString(part) {
		return nil, fmt.Errorf("part %q: a part's folder is named like a Kubernetes object, e.g. seed-controller", part)
	}
	namespaces := []string{}
	for _, role := range r.roles {
		namespaces = append(namespaces, role.namespace)
	}
	markerNamespaces, err := json.Marshal(namespaces)
	if err != nil {
		return nil, err
	}
	labels := fmt.Sprintf(`{{- include "seedscaler.partLabels" (dict "root" $ "name" %q) | nindent 4 }}`, part)

	var b strings.Builder
	fmt.Fprintf(&b, `{{- /*
Code generated by hack/chartrbac from files/rbac/%[1]s/role.yaml,
controller-gen's output of the part's +kubebuilder:rbac markers.
DO NOT EDIT: change a marker and run make generate.
*/}}
{{- define "seedscaler.%[1]s.markerNamespaces" -}}
%[2]s
{{- end }}
{{- $part := include "seedscaler.part" (dict "root" . "name" %[1]q) | fromJson }}
{{- if $part.enabled }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "seedscaler.name" (dict "root" $ "suffix" %[1]q) }}
  labels:
    %[3]s
rules:
`, part, markerNamespaces, labels)
	if err := writeRules(&b, r.clusterRules); err != nil {
		return nil, fmt.Errorf("%s: ClusterRole: %w", part, err)
	}
	b.WriteString("{{- include \"seedscaler.everyPartsRules\" $ | nindent 0 }}\n")
	for _, role := range r.roles {
		fmt.Fprintf(&b, `{{- range include "seedscaler.roleTargets" (dict "root" $ "part" $part "namespace" %q) | fromJsonArray }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    %s
rules:
`, role.namespace, labels)
		if err := writeRules(&b, role.rules); err != nil {
			return nil, fmt.Errorf("%s: Role in %s: %w", part, role.namespace, err)
		}
		b.WriteString("{{- end }}\n")
	}
	b.WriteString("{{- end }}\n")
	return []byte(b.String()), nil
}

// writeRules writes rules as a YAML list at the left margin; none writes nothing.
func writeRules(b *strings.Builder, rules []rbacv1.PolicyRule) error {
	if len(rules) == 0 {
		return nil
	}
	data, err := yaml.Marshal(rules)
	if err != nil {
		return err
	}
	// Helm would read template actions in a rule as its own.
	if bytes.Contains(data, []byte("{{")) || bytes.Contains(data, []byte("}}")) {
		return fmt.Errorf("a rule holds {{ or }}, which Helm would read as a template action: %s", data)
	}
	b.Write(data)
	return nil
}
