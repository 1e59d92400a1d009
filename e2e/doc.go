// Package e2e holds adjl's end-to-end suite: testscript files under testdata/
// that run the real `adjl` command and assert its stdout, stderr and exit code,
// once against the embedded engine (the default backend) and once against a
// reference DynamoDB-compatible server when ADJL_TEST_ENDPOINT names one
// (.ci/test starts moto_server and sets it). The package has no non-test code.
package e2e
