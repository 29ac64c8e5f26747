// Command image writes a container image as a tarball that `docker load`, `podman load`,
// `ctr images import`, `kind load image-archive` or `crane push` accept, without a Docker
// engine and without pulling a base image: one layer on scratch holding one static binary,
// run as a non-root user, as the chart's restricted pod security expects. It builds the
// seedscaler image, and the images the one-node test cluster runs besides it (the pause
// image, Prometheus).
//
//	go run . -binary ../../../bin/seedscaler-linux-amd64 -tag seedscaler/seedscaler:0.1.0 -out seedscaler.tar
//	go run . -binary /path/to/prometheus -path /bin/prometheus -tag local/prometheus:3.15.0 -out prometheus.tar
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "path of the static linux binary")
	flag.StringVar(&o.path, "path", "/seedscaler", "where the binary goes in the image; it is the entrypoint")
	flag.StringVar(&o.tag, "tag", "seedscaler/seedscaler:dev", "image reference to tag the image with")
	flag.StringVar(&o.out, "out", "seedscaler.tar", "tarball to write")
	flag.StringVar(&o.arch, "arch", "amd64", "architecture of the binary")
	flag.StringVar(&o.user, "user", "65532:65532", "user:group the image runs as")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

type options struct {
	binary, path, tag, out, arch, user string
}

func run(o options) error {
	if o.binary == "" {
		return fmt.Errorf("-binary is required: build one with GOOS=linux CGO_ENABLED=0 go build")
	}
	if !strings.HasPrefix(o.path, "/") || strings.HasSuffix(o.path, "/") {
		return fmt.Errorf("-path %q: want an absolute file path, e.g. /seedscaler", o.path)
	}
	data, err := os.ReadFile(o.binary)
	if err != nil {
		return err
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	// A fixed time keeps the image digest reproducible for the same binary.
	epoch := time.Unix(0, 0)
	if err := tw.WriteHeader(&tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: epoch}); err != nil {
		return err
	}
	if dir := path.Dir(o.path); dir != "/" {
		if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(dir, "/") + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(o.path, "/"), Mode: 0o755, Size: int64(len(data)), ModTime: epoch, Uid: 0, Gid: 0}); err != nil {
		return err
	}
	if _, err := tw.Write(data); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layer.Bytes())), nil })
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, l)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", o.arch
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config.Entrypoint = []string{o.path}
	cfg.Config.User = o.user
	cfg.Config.Env = []string{"TMPDIR=/tmp"}
	cfg.Config.Labels = map[string]string{"org.opencontainers.image.title": path.Base(o.path)}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	ref, err := name.NewTag(o.tag)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", o.tag, err)
	}
	if err := tarball.WriteToFile(o.out, ref, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s, %s)\n", o.out, ref, digest)
	return nil
}
