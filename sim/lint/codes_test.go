package lint

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
)

// seenCodes are the codes the package's tests made lint read.
var seenCodes = map[string]bool{}

func TestMain(m *testing.M) {
	codeSeen = func(code string) { seenCodes[code] = true }
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" {
		// Every code lint knows comes from some input of the tests (the
		// embedded scenarios and the tests' manifests).
		var missing []string
		for c := range codeFindings {
			if !seenCodes[c] {
				missing = append(missing, c)
			}
		}
		for c := range obsoleteErrors {
			if !seenCodes[c] {
				missing = append(missing, c)
			}
		}
		ineffective := false
		for c := range seenCodes {
			ineffective = ineffective || strings.HasPrefix(c, ineffectivePrefix)
		}
		if !ineffective {
			missing = append(missing, ineffectivePrefix+"*")
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			os.Stderr.WriteString("FAIL: codes lint knows that no test input emits: " + strings.Join(missing, ", ") + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// TestCodeTable: each code lint knows makes the finding its table says,
// and a code under ineffective. an ineffective setting.
func TestCodeTable(t *testing.T) {
	for code, want := range codeFindings {
		got, ok := classify(code)
		require.True(t, ok, code)
		require.Equal(t, want, got, code)
		require.NotEqual(t, KindInput, got.kind, code)
	}
	got, ok := classify("ineffective.anything")
	require.True(t, ok)
	require.Equal(t, codeFinding{Warning, KindIneffective}, got)
	_, ok = classify("")
	require.False(t, ok, "no code: an input-warning")
	_, ok = classify("ca.deployment-flags")
	require.False(t, ok, "a code lint does not raise: an input-warning")
}

// TestClassifiesByCodeNotText: sim/lint never inspects a warning's or
// error's message (Msg, or a msg variable holding it) with a strings
// function to classify it; only splitPath cuts the field path off for
// display, and TrimSuffix drops a fix the message repeats.
func TestClassifiesByCodeNotText(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Name.Name == "splitPath" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "strings" || sel.Sel.Name == "TrimSuffix" {
					return true
				}
				for _, a := range call.Args {
					ast.Inspect(a, func(n ast.Node) bool {
						switch x := n.(type) {
						case *ast.SelectorExpr:
							if x.Sel.Name == "Msg" {
								t.Errorf("%s: %s: strings.%s reads a message", fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
							}
						case *ast.Ident:
							if x.Name == "msg" {
								t.Errorf("%s: %s: strings.%s reads a message", fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
							}
						}
						return true
					})
				}
				return true
			})
		}
	}
}

// TestLegacyAPIErrors: a load error for a legacy API (a v1alpha5
// NodePool, a policy/v1beta1 PodDisruptionBudget) is an obsolete-setting
// error by its code; another is invalid.
func TestLegacyAPIErrors(t *testing.T) {
	for _, tc := range []struct{ doc, kind string }{
		{"---\napiVersion: karpenter.sh/v1alpha5\nkind: NodePool\nmetadata: {name: p}\nspec: {}\n", KindObsolete},
		{"---\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1}\n", KindObsolete},
		{"---\napiVersion: policy/v2\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1}\n", KindInvalid},
	} {
		_, err := scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(header + tc.doc)}}, "s.yaml")
		require.Error(t, err, tc.doc)
		r, ok := FromLoadError("t", err)
		require.True(t, ok)
		require.Len(t, r.Findings, 1, "%v", r.Findings)
		require.Equal(t, tc.kind, r.Findings[0].Kind, r.Findings[0].Message)
		require.Equal(t, Error, r.Findings[0].Severity)
	}
}
