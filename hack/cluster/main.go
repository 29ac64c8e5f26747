// Command cluster brings up and tears down the one-node Kubernetes cluster that runs the
// Helm chart's pods on this machine (test/framework/cluster says what it runs). It needs
// root. `make cluster-up` and `make cluster-down` run it.
//
//	go run ./hack/cluster up [--dir DIR] [--image TARBALL]...   last line: the kubeconfig path
//	go run ./hack/cluster down [--dir DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/seedscaler/seedscaler/test/framework/cluster"
	"github.com/seedscaler/seedscaler/test/framework/testenv"
)

type images []string

func (i *images) String() string     { return fmt.Sprint(*i) }
func (i *images) Set(v string) error { *i = append(*i, v); return nil }

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "up" && os.Args[1] != "down") {
		fmt.Fprintln(os.Stderr, "usage: cluster up [--dir DIR] [--image TARBALL]... | cluster down [--dir DIR]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", cluster.DefaultDir, "directory of the cluster's state, data and logs")
	var imgs images
	if os.Args[1] == "up" {
		fs.Var(&imgs, "image", "image tarball to import into the node (repeatable)")
	}
	_ = fs.Parse(os.Args[2:])

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1], *dir, imgs); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, verb, dir string, imgs []string) error {
	if verb == "down" {
		return cluster.Down(dir, os.Stderr)
	}
	repo, err := testenv.RepositoryRoot()
	if err != nil {
		return err
	}
	c, err := cluster.Up(ctx, cluster.Options{Dir: dir, Repo: repo, Images: imgs, Log: os.Stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cluster: up; stop it with `make cluster-down`\n")
	fmt.Println(c.Kubeconfig)
	return nil
}
