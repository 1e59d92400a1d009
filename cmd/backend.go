package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/adjl/adjl/ops"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// backend is an opened DynamoDB API: the embedded engine, AWS, or a
// compatible server at a URL.
type backend struct {
	api      ops.API
	describe string       // for --verbose: "local (file ./.adjl/data.db)"
	where    string       // in messages: "the embedded engine (data file ./.adjl/data.db)"
	close    func() error // nil when there is nothing to release
	// data is the embedded engine's data file when the command opened it
	// in process ("" for every other backend), and failure its storage
	// failure (a full disk), if any.
	data    string
	failure func() error
	// exclusive: nobody else can write through it while this process runs
	// (the embedded engine in process: it holds the data file's lock).
	exclusive bool
	// memoryLimited: the process runs under engineMemoryLimit, set for the
	// engine in process on its data file.
	memoryLimited bool
	// engine notes whether a server at a URL answers as adjl's engine.
	engine *engineHint
}

// Region and credentials adjl uses where none are configured, for the
// embedded engine and servers at a URL (they accept any signature).
const (
	fallbackRegion = "us-east-1"
	dummyKeyID     = "adjl"
	dummySecret    = "adjl-local"
	localEndpoint  = "http://local.adjl"
)

func dummyCredentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(dummyKeyID, dummySecret, "")
}

// openBackend opens the backend named by --endpoint. adjl reaches AWS only
// when --endpoint is exactly "aws".
func (a *app) openBackend(ctx context.Context) (*backend, error) {
	if a.set.Explain {
		return &backend{api: refusingAPI{refuse: func(string) error { return errExplainOnly }}, describe: "none (--explain: nothing is sent)"}, nil
	}
	ep := a.set.Endpoint
	if ep != "local" && ep != "aws" && !isURL(ep) {
		return nil, &usageError{err: fmt.Errorf("invalid endpoint %q (%s): want local, aws, or a URL such as http://127.0.0.1:8000", ep, a.set.origin["endpoint"])}
	}
	if a.api != nil {
		return &backend{api: a.api, describe: "injected"}, nil
	}
	a.warnUnusedSettings(ep)
	switch {
	case ep == "local":
		return a.openLocal(ctx, a.set.Data)
	case ep == "aws":
		return openAWS(ctx, a.set.Region, a.set.Profile, a.clientOptions()...)
	case isURL(ep):
		return openURL(ctx, ep, a.set.Region, a.set.Profile, a.getenv, a.clientOptions()...)
	}
	return nil, &usageError{err: fmt.Errorf("invalid --endpoint %q: want local, aws, or a URL such as http://127.0.0.1:8000", ep)}
}

// warnUnusedSettings says on stderr which settings the user gave that the
// backend ep does not use, rather than ignore them silently.
func (a *app) warnUnusedSettings(ep string) {
	unused := func(name, why string) {
		if o := a.set.origin[name]; o != "" && o != "default" {
			fmt.Fprintf(a.io.ErrOut, "adjl: warning: %s (%s) %s; ignored\n", name, o, why)
		}
	}
	if ep == "local" {
		unused("region", "does not apply to the embedded engine (--endpoint local)")
		unused("profile", "does not apply to the embedded engine (--endpoint local)")
		return
	}
	unused("data", "applies only to the embedded engine (--endpoint local)")
}

// clientOptions are the options of every DynamoDB client the command
// makes: the retry policy (retry.go); the request log, to stderr under
// --debug, or to browse's request panel (a terminal view leaves stderr
// alone); and, for every client, the recording of the credentials it
// retrieves in a.secrets, hidden from all adjl prints.
func (a *app) clientOptions() []func(*dynamodb.Options) {
	opts := []func(*dynamodb.Options){retryPolicy}
	if a.secrets != nil {
		opts = append(opts, a.secrets.recordOption)
	}
	var w io.Writer
	switch {
	case a.requestSink != nil:
		w = a.requestSink
		if a.secrets != nil {
			// The log holds errors, which may quote what a server echoed.
			w = redactingWriter{w: w, s: a.secrets, shapes: []shape{credentialShapes, errorShapes}}
		}
	case a.set != nil && a.set.Debug:
		w = a.io.ErrOut
	default:
		return opts
	}
	l := &requestLog{w: w, now: time.Now}
	if a.sch != nil {
		lay := a.sch.Layout()
		l.keys = []string{lay.PK, lay.SK}
	}
	return append(opts, l.clientOption)
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// localConfig is the SDK configuration for the embedded engine: the SDK's
// HTTP client is replaced by one that hands requests to the engine in
// process, so the code path is the same as for AWS. Requests go unsigned:
// the engine checks no signature, and signing (a SigV4 HMAC chain per
// request) was 4-6% of a bulk write's CPU.
func localConfig(httpClient aws.HTTPClient) aws.Config {
	return aws.Config{
		Region:       fallbackRegion,
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   httpClient,
		BaseEndpoint: aws.String(localEndpoint),
	}
}

func openAWS(ctx context.Context, region, profile string, clientOpts ...func(*dynamodb.Options)) (*backend, error) {
	var opts []func(*config.LoadOptions) error
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, awsConfigError(err)
	}
	if cfg.Region == "" {
		return nil, &usageError{err: errors.New("no AWS region configured"),
			hint: "pass --region (for example --region eu-west-1) or set AWS_REGION"}
	}
	desc := "aws (region " + cfg.Region
	if profile != "" {
		desc += ", profile " + profile
	}
	return &backend{api: dynamodb.NewFromConfig(cfg, clientOpts...), describe: desc + ")", where: "DynamoDB (region " + cfg.Region + ")"}, nil
}

// openURL configures a DynamoDB-compatible server. Nothing here may reach
// AWS: credentials come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or from
// --profile when the user names one, else dummy ones (local servers accept
// any signature). The default chain is not used because it may call SSO or
// the instance metadata service.
func openURL(ctx context.Context, endpoint, region, profile string, getenv func(string) (string, bool), clientOpts ...func(*dynamodb.Options)) (*backend, error) {
	cfg := aws.Config{Region: region, Credentials: dummyCredentials()}
	if profile != "" {
		opts := []func(*config.LoadOptions) error{
			config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
			config.WithSharedConfigProfile(profile),
		}
		if region != "" {
			opts = append(opts, config.WithRegion(region))
		}
		loaded, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return nil, awsConfigError(err)
		}
		cfg = loaded
	} else {
		if id, secret := envValue(getenv, "AWS_ACCESS_KEY_ID"), envValue(getenv, "AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
			cfg.Credentials = credentials.NewStaticCredentialsProvider(id, secret, envValue(getenv, "AWS_SESSION_TOKEN"))
		}
		cfg = retryEnv(cfg, getenv)
	}
	if cfg.Region == "" {
		cfg.Region = envValue(getenv, "AWS_REGION")
	}
	if cfg.Region == "" {
		cfg.Region = envValue(getenv, "AWS_DEFAULT_REGION")
	}
	if cfg.Region == "" {
		cfg.Region = fallbackRegion
	}
	hint := &engineHint{}
	clientOpts = append([]func(*dynamodb.Options){func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) }, hint.clientOption}, clientOpts...)
	client := dynamodb.NewFromConfig(cfg, clientOpts...)
	ep := strings.TrimRight(endpoint, "/")
	return &backend{api: client, describe: ep, where: "the server at " + ep, engine: hint}, nil
}

func envValue(getenv func(string) (string, bool), name string) string {
	v, _ := getenv(name)
	return v
}

func awsConfigError(err error) error {
	var noProfile config.SharedConfigProfileNotExistError
	if errors.As(err, &noProfile) {
		return &usageError{err: fmt.Errorf("AWS profile %q not found in the shared config files", noProfile.Profile),
			hint: "`aws configure list-profiles` lists them; or drop --profile (AWS_PROFILE)"}
	}
	return &usageError{err: fmt.Errorf("load AWS configuration: %w", err)}
}

// errExplainOnly is returned if ops ever sends a request while explaining;
// ops hands every request to the explainer instead.
var errExplainOnly = errors.New("--explain: requests are printed, not sent")

// refusingAPI is an ops.API that sends nothing: each operation returns the
// error refuse gives for its name. With --explain it stands for the backend,
// which is never opened.
type refusingAPI struct {
	refuse func(op string) error
}

func (r refusingAPI) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, r.refuse("CreateTable")
}

func (r refusingAPI) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return nil, r.refuse("DescribeTable")
}

func (r refusingAPI) DeleteTable(context.Context, *dynamodb.DeleteTableInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error) {
	return nil, r.refuse("DeleteTable")
}

func (r refusingAPI) PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return nil, r.refuse("PutItem")
}

func (r refusingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, r.refuse("GetItem")
}

func (r refusingAPI) UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return nil, r.refuse("UpdateItem")
}

func (r refusingAPI) DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, r.refuse("DeleteItem")
}

func (r refusingAPI) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return nil, r.refuse("Query")
}

func (r refusingAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return nil, r.refuse("TransactWriteItems")
}

func (r refusingAPI) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, r.refuse("BatchGetItem")
}

func (r refusingAPI) BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return nil, r.refuse("BatchWriteItem")
}

var _ ops.API = refusingAPI{}
