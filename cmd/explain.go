package cmd

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"

	"github.com/adjl/adjl/internal/plainjson"
	"github.com/adjl/adjl/ops"
)

// explainer prints the requests ops hands it instead of sending them: the
// request in DynamoDB's wire shape, then the same request as an AWS CLI
// command a user can paste, which returns what adjl's request would: one
// page (--no-paginate), from the same server and region.
type explainer struct {
	w io.Writer
	// awsFlags are appended to each aws CLI line (--endpoint-url, --region),
	// so that it sends the request where adjl would.
	awsFlags []string
	// note, when set, is printed as a comment before the first aws CLI
	// line: what the lines need to run (a server for the embedded engine).
	note  string
	count int
}

// defaultServeAddr is where adjl local serve listens unless --addr says.
const defaultServeAddr = "127.0.0.1:8000"

// serveAddrPlaceholder stands for local serve's address in an aws CLI line
// when no serve holds the data file: the CLI refuses the line as it is.
const serveAddrPlaceholder = "127.0.0.1:PORT"

// paginated are the operations the aws CLI pages through by itself unless
// told --no-paginate; adjl sends one page of them per request.
var paginated = map[string]bool{"Query": true, "Scan": true, "ListTables": true}

func (e *explainer) explain(r ops.Request) {
	e.count++
	body, ok := wireValue(reflect.ValueOf(r.Input))
	if !ok {
		body = orderedObject{}
	}
	pretty, err := prettyJSON(body)
	if err != nil {
		fmt.Fprintf(e.w, "# %s: cannot render request: %v\n", r.Operation, err)
		return
	}
	compact, _ := plainjson.Marshal(body)
	if e.count > 1 {
		fmt.Fprintln(e.w)
	}
	if r.When != "" {
		fmt.Fprintf(e.w, "# %s (%s)\n%s\n", r.Operation, r.When, pretty)
	} else {
		fmt.Fprintf(e.w, "# %s\n%s\n", r.Operation, pretty)
	}
	if e.note != "" && e.count == 1 {
		fmt.Fprintf(e.w, "# %s\n", e.note)
	}
	line := []string{"aws", "dynamodb", kebab(r.Operation)}
	if paginated[r.Operation] {
		line = append(line, "--no-paginate")
	}
	line = append(line, e.awsFlags...)
	line = append(line, "--cli-input-json", shellQuote(string(compact)))
	fmt.Fprintln(e.w, strings.Join(line, " "))
}

// unescapeHTML undoes MarshalIndent's HTML escaping (it re-escapes what the
// ordered objects wrote plainly), so "#" and "<" read as typed.
func unescapeHTML(b []byte) string {
	r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	return r.Replace(string(b))
}

// kebab turns an operation name into the AWS CLI's command name:
// TransactWriteItems -> transact-write-items.
func kebab(op string) string {
	var b strings.Builder
	for i, r := range op {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell, only when needed.
func shellQuote(s string) string {
	if s != "" && s[0] != '#' && s[0] != '~' && strings.IndexFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("#@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
