// Command adjl models and queries many-to-many relationships in DynamoDB
// with the adjacency-list pattern. Everything lives in package cmd so that
// exit codes and output are testable without a process.
package main

import (
	"os"

	"github.com/adjl/adjl/cmd"
)

func main() { os.Exit(cmd.Main()) }
