package clusterautoscaler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxStructFields is the most named fields a struct of this package or
// its subpackages may have (issue 31: no part grows back into the one
// 46-field Autoscaler). Every name counts (a, b int is 2), an embedded
// field counts 1.
const maxStructFields = 40

func TestNoStructOverMaxFields(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[*ast.StructType]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					names[st] = ts.Name.Name
				}
			}
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			checked++
			count := 0
			for _, fl := range st.Fields.List {
				count += max(len(fl.Names), 1)
			}
			if count > maxStructFields {
				name := names[st]
				if name == "" {
					name = "(anonymous)"
				}
				t.Errorf("%s: struct %s has %d fields (at most %d): split it", fset.Position(st.Pos()), name, count, maxStructFields)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no struct found: the walk missed the package")
	}
}
