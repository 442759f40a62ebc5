// Package godoc checks that every exported name of the generated module has a doc
// comment, as `go doc` shows it: types, functions, methods, and the constants, variables
// and struct fields users read (a group's comment covers the names in it).
package godoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// module is the generated module, from tests/go/godoc.
var module = filepath.Join("..", "..", "..", "generated", "go")

func TestEveryExportedNameIsDocumented(t *testing.T) {
	var missing []string
	files := 0
	err := filepath.WalkDir(module, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, name := range undocumented(f) {
			missing = append(missing, fset.Position(name.Pos()).String()+": "+name.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d files under %s", files, module)
	}
	if len(missing) > 0 {
		t.Fatalf("%d exported names without a doc comment:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

// undocumented gives the exported names of f that go doc would show without a comment.
func undocumented(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil && exportedReceiver(d) {
				out = append(out, d.Name)
			}
		case *ast.GenDecl:
			out = append(out, undocumentedSpecs(d)...)
		}
	}
	return out
}

// exportedReceiver tells whether a method's receiver type is exported (a function has none).
func exportedReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	for {
		switch e := t.(type) {
		case *ast.StarExpr:
			t = e.X
		case *ast.IndexExpr:
			t = e.X
		case *ast.IndexListExpr:
			t = e.X
		case *ast.Ident:
			return e.IsExported()
		default:
			return true
		}
	}
}

func undocumentedSpecs(d *ast.GenDecl) []*ast.Ident {
	var out []*ast.Ident
	grouped := d.Doc != nil
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if s.Name.IsExported() && !grouped && s.Doc == nil {
				out = append(out, s.Name)
			}
			if st, ok := s.Type.(*ast.StructType); ok && s.Name.IsExported() {
				out = append(out, undocumentedFields(st)...)
			}
		case *ast.ValueSpec:
			for _, name := range s.Names {
				if name.IsExported() && !grouped && s.Doc == nil && s.Comment == nil {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// undocumentedFields are a struct's exported fields with no comment (embedded ones are
// their type's).
func undocumentedFields(st *ast.StructType) []*ast.Ident {
	var out []*ast.Ident
	for _, field := range st.Fields.List {
		for _, name := range field.Names {
			if name.IsExported() && field.Doc == nil && field.Comment == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

func TestTheCheckFindsWhatIsMissing(t *testing.T) {
	src := `package p

// Documented is.
type Documented struct {
	// A is.
	A int
	B int
}

type Bare int

func (Bare) Method() {}

// Group of two.
const (
	One = 1
	Two = 2
)

var Lone = 3

func hidden() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, id := range undocumented(f) {
		names = append(names, id.Name)
	}
	if got := strings.Join(names, " "); got != "B Bare Method Lone" {
		t.Fatalf("found %q", got)
	}
}
