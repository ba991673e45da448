package config

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Cluster Autoscaler's flags are checked against a list of upstream's
// flags kept in testdata/upstream-flags.txt, generated from a checkout of
// kubernetes-sigs/cluster-autoscaler, so that the check runs without one:
//
//	go test ./sim/clusterautoscaler/config -run TestUpstreamFlagsFile -update-upstream-flags
//
// regenerates it from .upstream/cluster-autoscaler at the root of the
// repository (or -upstream=<checkout>), as make fidelity-ca does.
var (
	updateUpstreamFlags = flag.Bool("update-upstream-flags", false, "rewrite testdata/upstream-flags.txt from the upstream checkout")
	upstreamDir         = flag.String("upstream", filepath.Join("..", "..", "..", ".upstream", "cluster-autoscaler"), "a checkout of kubernetes-sigs/cluster-autoscaler")
)

const upstreamFlagsFile = "testdata/upstream-flags.txt"

// upstreamFlag is one line of upstream-flags.txt.
type upstreamFlag struct {
	name, kind, def string // def "?": set by the build, not a constant
}

// mainFlags are the flags upstream's main registers besides
// pkg/config/flags (kwok/main.go: klog.InitFlags, logsapi.AddFlags,
// componentopts.BindLeaderElectionFlags, featureGate.AddFlag), with the
// defaults it gives them; kube_flag.InitFlags normalizes klog's
// underscores to dashes. Sources: k8s.io/klog/v2 v2.140.0 klog.go
// InitFlags; k8s.io/component-base logs/api/v1/options.go AddFlags and
// config/options/leaderelectionconfig.go; kwok/main.go
// leaderElectionConfiguration (and its flag.Set of stderrthreshold INFO,
// legacy_stderr_threshold_behavior false).
var mainFlags = []upstreamFlag{
	{"add-dir-header", "bool", "false"}, {"alsologtostderr", "bool", "false"}, {"alsologtostderrthreshold", "string", ""},
	{"legacy-stderr-threshold-behavior", "bool", "false"}, {"log-backtrace-at", "string", ":0"}, {"log-dir", "string", ""},
	{"log-file", "string", ""}, {"log-file-max-size", "int", "1800"}, {"logtostderr", "bool", "true"},
	{"one-output", "bool", "false"}, {"skip-headers", "bool", "false"}, {"skip-log-headers", "bool", "false"},
	{"stderrthreshold", "string", "INFO"}, {"v", "int", "0"}, {"vmodule", "string", ""},
	{"logging-format", "string", "text"}, {"log-flush-frequency", "duration", "5s"},
	{"log-json-info-buffer-size", "string", "0"}, {"log-json-split-stream", "bool", "false"},
	{"log-text-info-buffer-size", "string", "0"}, {"log-text-split-stream", "bool", "false"},
	{"leader-elect", "bool", "true"}, {"leader-elect-lease-duration", "duration", "15s"},
	{"leader-elect-renew-deadline", "duration", "10s"}, {"leader-elect-retry-period", "duration", "2s"},
	{"leader-elect-resource-lock", "string", "leases"}, {"leader-elect-resource-name", "string", "cluster-autoscaler"},
	{"leader-elect-resource-namespace", "string", ""}, {"feature-gates", "string", ""},
}

// readUpstream builds the list from a checkout: every fs.<Kind>Var of
// pkg/config/flags/flags.go with its default evaluated (constants of
// pkg/config, pkg/estimator and pkg/expander resolved), then mainFlags.
func readUpstream(dir string) ([]upstreamFlag, string, error) {
	consts := map[string]constant.Value{
		// k8s.io/client-go rest/config.go.
		"rest.DefaultBurst": constant.MakeInt64(10), "rest.DefaultQPS": constant.MakeFloat64(5),
	}
	for unit, d := range map[string]time.Duration{"Nanosecond": time.Nanosecond, "Millisecond": time.Millisecond,
		"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour} {
		consts["time."+unit] = constant.MakeInt64(int64(d))
	}
	fset := token.NewFileSet()
	for _, src := range []struct{ pkg, path string }{
		{"config", "pkg/config/const.go"}, {"config", "pkg/config/autoscaling_options.go"},
		{"estimator", "pkg/estimator/estimator.go"}, {"expander", "pkg/expander/expander.go"}, {"", "pkg/config/flags/flags.go"},
	} {
		f, err := parser.ParseFile(fset, filepath.Join(dir, src.path), nil, 0)
		if err != nil {
			return nil, "", err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if v, err := evalConst(vs.Values[i], consts); err == nil {
							key := n.Name
							if src.pkg != "" {
								key = src.pkg + "." + n.Name
							}
							consts[key] = v
						}
					}
				}
			}
		}
	}
	f, err := parser.ParseFile(fset, filepath.Join(dir, "pkg/config/flags/flags.go"), nil, 0)
	if err != nil {
		return nil, "", err
	}
	var out []upstreamFlag
	var walkErr error
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || walkErr != nil {
			return walkErr == nil
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) < 3 {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "fs" {
			return true
		}
		nv, err := evalConst(call.Args[1], consts) // a literal, or config.SchedulerConfigFileFlag
		if err != nil || nv.Kind() != constant.String {
			return true
		}
		name := constant.StringVal(nv)
		fl := upstreamFlag{name: name}
		def := call.Args[2]
		switch sel.Sel.Name {
		case "BoolVar":
			fl.kind = "bool"
		case "IntVar":
			fl.kind = "int"
		case "Float64Var":
			fl.kind = "float"
		case "DurationVar":
			fl.kind = "duration"
		case "StringVar":
			fl.kind = "string"
		case "StringArrayVar", "StringSliceVar":
			fl.kind, def = "list", nil
		default:
			walkErr = fmt.Errorf("%s: fs.%s for --%s: teach readUpstream this kind", fset.Position(call.Pos()), sel.Sel.Name, name)
			return false
		}
		if def != nil {
			v, err := evalConst(def, consts)
			switch {
			case err != nil && fl.kind == "string":
				fl.def = "?" // e.g. cloudBuilder.DefaultCloudProvider(): the build's provider
			case err != nil:
				walkErr = fmt.Errorf("%s: default of --%s: %v", fset.Position(def.Pos()), name, err)
				return false
			default:
				fl.def = formatDefault(fl.kind, v)
			}
		}
		out = append(out, fl)
		return true
	})
	if walkErr != nil {
		return nil, "", walkErr
	}
	out = append(out, mainFlags...)
	head, _ := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
	return out, strings.TrimSpace(string(head)), nil
}

// evalConst evaluates a default: literals, constants, arithmetic, and the
// conversions and helpers flags.go uses.
func evalConst(e ast.Expr, consts map[string]constant.Value) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0), nil
	case *ast.ParenExpr:
		return evalConst(e.X, consts)
	case *ast.Ident:
		switch e.Name {
		case "true", "false":
			return constant.MakeBool(e.Name == "true"), nil
		}
		if v, ok := consts[e.Name]; ok {
			return v, nil
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if v, ok := consts[x.Name+"."+e.Sel.Name]; ok {
				return v, nil
			}
		}
	case *ast.UnaryExpr:
		x, err := evalConst(e.X, consts)
		if err != nil {
			return nil, err
		}
		return constant.UnaryOp(e.Op, x, 0), nil
	case *ast.BinaryExpr:
		x, err := evalConst(e.X, consts)
		if err != nil {
			return nil, err
		}
		y, err := evalConst(e.Y, consts)
		if err != nil {
			return nil, err
		}
		return constant.BinaryOp(x, e.Op, y), nil
	case *ast.CallExpr:
		fn := ""
		switch f := e.Fun.(type) {
		case *ast.Ident:
			fn = f.Name
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok {
				fn = x.Name + "." + f.Sel.Name
			}
		}
		switch {
		case (fn == "time.Duration" || fn == "float64" || fn == "int") && len(e.Args) == 1:
			return evalConst(e.Args[0], consts)
		case fn == "minMaxFlagString" && len(e.Args) == 2:
			lo, err := evalConst(e.Args[0], consts)
			if err != nil {
				return nil, err
			}
			hi, err := evalConst(e.Args[1], consts)
			if err != nil {
				return nil, err
			}
			return constant.MakeString(lo.ExactString() + ":" + hi.ExactString()), nil
		}
	}
	return nil, fmt.Errorf("cannot evaluate %T", e)
}

func formatDefault(kind string, v constant.Value) string {
	switch kind {
	case "duration":
		n, _ := constant.Int64Val(constant.ToInt(v))
		return time.Duration(n).String()
	case "float":
		x, _ := constant.Float64Val(v)
		return strconv.FormatFloat(x, 'g', -1, 64)
	case "string":
		return constant.StringVal(v)
	default:
		return v.ExactString()
	}
}

func writeUpstreamFlags(flags []upstreamFlag, commit string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The Cluster Autoscaler's flags: kubernetes-sigs/cluster-autoscaler %s\n", commit)
	b.WriteString("# pkg/config/flags/flags.go, then those its main registers (klog, logs, leader election,\n")
	b.WriteString("# feature gates). Generated: go test ./sim/clusterautoscaler/config -run TestUpstreamFlagsFile\n")
	b.WriteString("# -update-upstream-flags. Columns: name, kind, default (\"?\": set by the build).\n")
	for _, f := range flags {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", f.name, f.kind, f.def)
	}
	return b.Bytes()
}

func loadUpstreamFlags(t *testing.T) []upstreamFlag {
	t.Helper()
	data, err := os.ReadFile(upstreamFlagsFile)
	require.NoError(t, err)
	var out []upstreamFlag
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		require.Len(t, parts, 3, "%s: %q", upstreamFlagsFile, line)
		out = append(out, upstreamFlag{parts[0], parts[1], parts[2]})
	}
	return out
}

// TestUpstreamFlagsFile checks testdata/upstream-flags.txt against the
// checkout, when there is one (-update-upstream-flags rewrites it).
func TestUpstreamFlagsFile(t *testing.T) {
	if _, err := os.Stat(filepath.Join(*upstreamDir, "pkg/config/flags/flags.go")); err != nil {
		t.Skipf("no upstream checkout at %s (kubernetes-sigs/cluster-autoscaler; see the Makefile's fidelity-ca): %s is checked as it is", *upstreamDir, upstreamFlagsFile)
	}
	flags, commit, err := readUpstream(*upstreamDir)
	require.NoError(t, err)
	got := writeUpstreamFlags(flags, commit)
	if *updateUpstreamFlags {
		require.NoError(t, os.WriteFile(upstreamFlagsFile, got, 0o644))
	}
	want, err := os.ReadFile(upstreamFlagsFile)
	require.NoError(t, err)
	require.Equal(t, string(got), string(want), "%s is stale: rerun with -update-upstream-flags", upstreamFlagsFile)
}

// TestFlagTableCoversUpstream: our tables hold exactly upstream's flags
// (testdata/upstream-flags.txt), plus the removed flags users still pass
// and the GCE provider's flags the FAQ's table lists; a boolean upstream
// is a boolean here (it may be given alone), and no name is in two
// tables.
func TestFlagTableCoversUpstream(t *testing.T) {
	up := loadUpstreamFlags(t)
	require.Greater(t, len(up), 150, "the list looks truncated")
	// Not in 1.37's tree, still recognised: see removedFlags and
	// valueNoEffect.
	notInUpstream := map[string]bool{"max-empty-bulk-delete": true, "cloud-provider-gce-l7lb-src-cidrs": true, "cloud-provider-gce-lb-src-cidrs": true}
	for n := range removedFlags {
		notInUpstream[n] = true
	}
	ours := map[string]int{}
	for n := range modelledFlags {
		ours[n]++
	}
	for n := range boolNoEffect {
		ours[n]++
	}
	for n := range valueNoEffect {
		ours[n]++
	}
	for n := range removedFlags {
		ours[n]++
	}
	upstream := map[string]bool{}
	for _, f := range up {
		upstream[f.name] = true
		_, info, ok := lookupFlag(f.name)
		if !assert.True(t, ok, "upstream flag --%s is not in our tables", f.name) {
			continue
		}
		assert.Equal(t, f.kind == "bool", info.isBool, "--%s: upstream's kind is %s", f.name, f.kind)
		if !info.modelled {
			assert.NotNil(t, info.noEffect, "--%s: a flag without a modelled effect needs a reason", f.name)
		}
		assert.False(t, notInUpstream[f.name], "--%s is upstream's", f.name)
	}
	for n, k := range ours {
		assert.Equal(t, 1, k, "--%s is in %d tables", n, k)
		assert.True(t, upstream[n] || notInUpstream[n], "--%s is not an upstream flag: drop it or list it in notInUpstream with why", n)
	}
}

// TestUpstreamDefaults: each modelled flag set to upstream's default
// leaves DefaultOptions unchanged, so our defaults are 1.37's.
func TestUpstreamDefaults(t *testing.T) {
	for _, f := range loadUpstreamFlags(t) {
		def, ok := modelledFlags[f.name]
		if !ok || f.kind == "list" || f.def == "?" {
			continue
		}
		o := DefaultOptions()
		require.NoError(t, def.set(&o, f.def), "--%s=%s", f.name, f.def)
		want := DefaultOptions()
		o.Warnings, want.Warnings = nil, nil
		assert.Equal(t, want, o, "--%s: our default differs from upstream's %q", f.name, f.def)
	}
}
