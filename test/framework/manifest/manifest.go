// Package manifest reads Kubernetes manifests (multi-document YAML) and creates their
// objects with strict field validation, as `kubectl create` does.
package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Read decodes every object of a multi-document YAML or JSON stream.
func Read(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(obj.Object) == 0 { // an empty document between two `---`
			continue
		}
		objs = append(objs, obj)
	}
}

// ReadFile decodes every object of a manifest file.
func ReadFile(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return objs, nil
}

// Files lists the .yaml and .yml files below dir, in lexical order of their paths.
func Files(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// CreateOrderly creates objects with strict field validation, Namespaces first so that
// namespaced objects of the same batch find theirs; a Namespace that exists already (the
// chart creates those its Roles need) is used as it is. It stops at the first error and
// says which object failed.
func CreateOrderly(ctx context.Context, c client.Client, objs []*unstructured.Unstructured) error {
	ordered := make([]*unstructured.Unstructured, len(objs))
	copy(ordered, objs)
	sort.SliceStable(ordered, func(i, j int) bool {
		return ordered[i].GetKind() == "Namespace" && ordered[j].GetKind() != "Namespace"
	})
	for _, obj := range ordered {
		if err := c.Create(ctx, obj, client.FieldValidation("Strict")); err != nil {
			if obj.GetKind() == "Namespace" && apierrors.IsAlreadyExists(err) {
				continue
			}
			return fmt.Errorf("creating %s %s: %w", obj.GetKind(), client.ObjectKeyFromObject(obj), err)
		}
	}
	return nil
}
