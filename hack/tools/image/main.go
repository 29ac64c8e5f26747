// Command image writes the seedscaler container image as a tarball that `docker load`,
// `podman load`, `kind load image-archive` or `crane push` accept, without a Docker engine
// and without pulling a base image: one layer on scratch holding the static binary, run as
// a non-root user, as the chart's restricted pod security expects.
//
//	go run . -binary ../../../bin/seedscaler-linux-amd64 -tag seedscaler/seedscaler:0.1.0 -out seedscaler.tar
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	binary := flag.String("binary", "", "path of the static linux seedscaler binary")
	tag := flag.String("tag", "seedscaler/seedscaler:dev", "image reference to tag the image with")
	out := flag.String("out", "seedscaler.tar", "tarball to write")
	arch := flag.String("arch", "amd64", "architecture of the binary")
	flag.Parse()
	if err := run(*binary, *tag, *out, *arch); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(binary, tag, out, arch string) error {
	if binary == "" {
		return fmt.Errorf("-binary is required: build one with GOOS=linux CGO_ENABLED=0 go build")
	}
	data, err := os.ReadFile(binary)
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
	if err := tw.WriteHeader(&tar.Header{Name: "seedscaler", Mode: 0o755, Size: int64(len(data)), ModTime: epoch, Uid: 0, Gid: 0}); err != nil {
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
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Created = v1.Time{Time: epoch}
	cfg.Config.Entrypoint = []string{"/seedscaler"}
	cfg.Config.User = "65532:65532"
	cfg.Config.Env = []string{"TMPDIR=/tmp"}
	cfg.Config.Labels = map[string]string{"org.opencontainers.image.title": "seedscaler"}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return err
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("-tag %q: %w", tag, err)
	}
	if err := tarball.WriteToFile(out, ref, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s, %s)\n", out, ref, digest)
	return nil
}
