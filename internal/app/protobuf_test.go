package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

func TestProtobufAsksForProtobufOnACopy(t *testing.T) {
	cfg := &rest.Config{Host: "https://apiserver:6443", QPS: 5, Burst: 10}
	pb := Protobuf(cfg)
	assert.Equal(t, runtime.ContentTypeProtobuf, pb.ContentType)
	assert.Equal(t, runtime.ContentTypeProtobuf+","+runtime.ContentTypeJSON, pb.AcceptContentTypes, "JSON stays acceptable for errors and older servers")
	assert.Equal(t, cfg.Host, pb.Host)
	assert.Equal(t, cfg.QPS, pb.QPS)
	assert.Empty(t, cfg.ContentType, "the caller's config, used for custom resources, stays JSON")
	assert.Empty(t, cfg.AcceptContentTypes)
}
