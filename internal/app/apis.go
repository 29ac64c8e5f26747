package app

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// RequireKinds fails, naming every kind missing, when the cluster does not serve a kind the
// part needs: a part started in a garden without seedscaler's CRDs, or beside a Gardener too
// old for a kind, would otherwise wait for informers that never sync and say nothing. Each
// kind is looked up by discovery of its group version, whoever serves it: a CRD, or an
// aggregated API server such as gardener-apiserver.
func RequireKinds(cfg *rest.Config, part string, kinds ...schema.GroupVersionKind) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	return requireKinds(dc, part, kinds)
}

func requireKinds(dc discovery.ServerResourcesInterface, part string, kinds []schema.GroupVersionKind) error {
	served := map[schema.GroupVersion]map[string]bool{}
	var missing []string
	for _, gvk := range kinds {
		gv := gvk.GroupVersion()
		kindsOf, ok := served[gv]
		if !ok {
			kindsOf = map[string]bool{}
			list, err := dc.ServerResourcesForGroupVersion(gv.String())
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("the %s asked the cluster which kinds %s serves: %w", part, gv, err)
			}
			if list != nil {
				for _, r := range list.APIResources {
					if !strings.Contains(r.Name, "/") {
						kindsOf[r.Kind] = true
					}
				}
			}
			served[gv] = kindsOf
		}
		if !kindsOf[gvk.Kind] {
			missing = append(missing, fmt.Sprintf("%s (%s)", gvk.Kind, gv))
		}
	}
	if len(missing) > 0 {
		return errors.New("the " + part + " needs " + strings.Join(missing, ", ") + ", which this cluster does not serve: " +
			"install the chart's CRDs of that group (crds.gardenerCore, crds.seedManagement, crds.autoscaling), " +
			"or run it in a Gardener garden whose gardener-apiserver serves Gardener's groups")
	}
	return nil
}
