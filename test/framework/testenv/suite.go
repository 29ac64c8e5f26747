package testenv

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/yaml"

	seedmanagementv1alpha1 "github.com/seedscaler/seedscaler/api/seedmanagement/v1alpha1"
)

// QuietLogs sends klog and controller-runtime's log to standard error for errors only:
// integration tests judge controllers by what they write to the apiserver, and a failing
// test prints what it needs.
func QuietLogs() {
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("logtostderr", "false")
	_ = klogFlags.Set("stderrthreshold", "ERROR")
	klog.SetOutput(io.Discard)
	logf.SetLogger(klog.NewKlogr())
}

// RunTests is the body of a package's TestMain: quiet logs, an environment started with
// opts, the package's tests (which get the environment and return m.Run's code, after any
// set-up of their own), and the environment stopped. It returns the code for os.Exit.
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.RunTests(testenv.Options{}, func(e *testenv.Environment) int {
//			env = e
//			return m.Run()
//		}))
//	}
func RunTests(opts Options, tests func(*Environment) int) int {
	QuietLogs()
	env, err := Start(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	return tests(env)
}

// ReadExample decodes a manifest of the repository's examples/ folder, strictly, into obj:
// tests start from the same objects a user applies. path is relative to examples/.
func ReadExample(path string, obj any) error {
	root, err := RepositoryRoot()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(root, "examples", path))
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		return fmt.Errorf("examples/%s: %w", path, err)
	}
	return nil
}

// ExampleManagedSeedSet is the GEP's example ManagedSeedSet (examples/managedseedset.yaml) as
// namespace/name with the given replicas and partition 0.
func ExampleManagedSeedSet(namespace, name string, replicas int32) (*seedmanagementv1alpha1.ManagedSeedSet, error) {
	set := &seedmanagementv1alpha1.ManagedSeedSet{}
	if err := ReadExample("managedseedset.yaml", set); err != nil {
		return nil, err
	}
	set.Namespace, set.Name = namespace, name
	set.Spec.Replicas = ptr.To(replicas)
	set.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
	return set, nil
}

var names atomic.Int64

// Unique returns prefix with a number no other call in this test binary returned, so
// tests create fresh objects and can run with -count.
func Unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, names.Add(1))
}

// Namespace creates a namespace with a Unique name from prefix and returns the name.
func (e *Environment) Namespace(ctx context.Context, prefix string) (string, error) {
	name := Unique(prefix)
	return name, e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// RunManagers runs a package's tests while its managers run: it starts them, runs tests,
// stops them and waits for each. It returns the tests' exit code, or 1 when a manager
// failed.
func RunManagers(ctx context.Context, tests func() int, managers ...manager.Runnable) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, len(managers))
	for _, mgr := range managers {
		go func() { done <- mgr.Start(ctx) }()
	}
	code := tests()
	cancel()
	for range managers {
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
			code = 1
		}
	}
	return code
}
