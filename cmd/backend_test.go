package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func urlClient(t *testing.T, region string, env map[string]string) (dynamodb.Options, aws.Credentials) {
	t.Helper()
	be, err := openURL(context.Background(), "http://127.0.0.1:8000", region, "", envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	o := be.api.(*dynamodb.Client).Options()
	creds, err := o.Credentials.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if be.describe != "http://127.0.0.1:8000" {
		t.Errorf("describe = %q", be.describe)
	}
	return o, creds
}

func TestURLBackendDefaults(t *testing.T) {
	o, creds := urlClient(t, "", nil)
	if o.Region != "us-east-1" || creds.AccessKeyID != dummyKeyID {
		t.Errorf("no config: region %q key %q", o.Region, creds.AccessKeyID)
	}
	if aws.ToString(o.BaseEndpoint) != "http://127.0.0.1:8000" {
		t.Errorf("endpoint %q", aws.ToString(o.BaseEndpoint))
	}
	o, creds = urlClient(t, "", map[string]string{"AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_REGION": "eu-west-1"})
	if o.Region != "eu-west-1" || creds.AccessKeyID != "AK" {
		t.Errorf("env: region %q key %q", o.Region, creds.AccessKeyID)
	}
	o, _ = urlClient(t, "ap-south-1", map[string]string{"AWS_REGION": "eu-west-1"})
	if o.Region != "ap-south-1" {
		t.Errorf("--region lost to env: %q", o.Region)
	}
}

func TestLocalConfigNeverAWS(t *testing.T) {
	cfg := localConfig(nil)
	if aws.ToString(cfg.BaseEndpoint) != localEndpoint || cfg.Region != fallbackRegion {
		t.Errorf("local config: %+v", cfg)
	}
	if _, ok := cfg.Credentials.(aws.AnonymousCredentials); !ok {
		t.Errorf("local credentials %T: the in-process engine needs no signature", cfg.Credentials)
	}
	if !strings.HasPrefix(localEndpoint, "http://") || strings.Contains(localEndpoint, "amazonaws") {
		t.Errorf("local endpoint %q", localEndpoint)
	}
}

func TestVerboseURLBackend(t *testing.T) {
	isolate(t)
	r := adjl(t, runOpts{}, "--schema", example(t, "school.yaml"), "--verbose", "--endpoint", "http://127.0.0.1:1", "get", "STU#a")
	if !strings.HasPrefix(r.err, "backend: http://127.0.0.1:1\n") {
		t.Errorf("stderr = %q", r.err)
	}
}
