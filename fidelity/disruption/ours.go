package disruptionfidelity

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Ours runs our side of a case through the user's path: the case's export
// written as a file, `sim import` on it, the scenario's market turned off
// (and the spot-to-spot and node repair feature gates set as the case has
// them), then `sim
// run --events` and the disruption commands read from the events file.
type Ours struct {
	// Sim is the sim binary.
	Sim string
	// Dir is where the case's files go.
	Dir string
	// Horizon is how long the run simulates.
	Horizon time.Duration
}

// OursResult is what our run did.
type OursResult struct {
	// Decisions are the commands decided, in order, and the expirations
	// (nodes tainted for deletion at once, without a command).
	Decisions []Decision
	// Started are the times the decisions started (or -1 when they were
	// invalidated or never started).
	Started []time.Duration
	// Removed is when each node removed during the run went.
	Removed map[string]time.Duration
	// Elapsed is the wall time of `sim run` (the whole process:
	// loading, the run, the report).
	Elapsed time.Duration
	// Scenario is the path of the scenario run.
	Scenario string
}

// Run imports and runs the case.
func (o *Ours) Run(c *Case) (*OursResult, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	export, err := c.Export()
	if err != nil {
		return nil, err
	}
	exportPath := filepath.Join(o.Dir, c.Name+".json")
	if err := os.WriteFile(exportPath, export, 0o644); err != nil {
		return nil, err
	}
	imported := filepath.Join(o.Dir, c.Name+".imported.yaml")
	if out, err := exec.Command(o.Sim, "import", exportPath, "-o", imported, "--duration", o.Horizon.String()).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: sim import: %v: %s", c.Name, err, out)
	}
	scenario := filepath.Join(o.Dir, c.Name+".yaml")
	if err := setScenario(imported, scenario, c.SpotToSpot, c.NodeRepair, c.Static); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	events := filepath.Join(o.Dir, c.Name+".events.jsonl")
	start := time.Now()
	if out, err := exec.Command(o.Sim, "run", scenario, "--events", events, "-o", "json", "--report", filepath.Join(o.Dir, c.Name+".report.json")).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: sim run: %v: %s", c.Name, err, out)
	}
	elapsed := time.Since(start)
	res, err := readDecisions(events, c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	res.Elapsed, res.Scenario = elapsed, scenario
	return res, nil
}

// DumpAt runs the scenario again to at (virtual time since the start)
// and returns the state it dumps (sim run --dump-state), as kubectl
// would list it.
func (o *Ours) DumpAt(scenario string, at time.Duration, name string) (string, error) {
	out := filepath.Join(o.Dir, name+".state.yaml")
	// At the microsecond at or after at: the events at that time are in
	// the dump (the run dumps once they are dispatched).
	us := (at + time.Microsecond - 1) / time.Microsecond
	if b, err := exec.Command(o.Sim, "run", scenario, "--dump-state", fmt.Sprintf("%dus", us), "--state-out", out,
		"--report", filepath.Join(o.Dir, name+".state-report.txt")).CombinedOutput(); err != nil {
		return "", fmt.Errorf("sim run --dump-state: %v: %s", err, b)
	}
	return out, nil
}

// setScenario writes the imported scenario with the market off and the
// spot-to-spot gate as the case has it: the Scenario document's spec, as
// a user edits it.
func setScenario(in, out string, spotToSpot, nodeRepair, static bool) error {
	b, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	docs := strings.Split(string(b), "\n---\n")
	for i, d := range docs {
		if !strings.Contains(d, "kind: Scenario") {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			return fmt.Errorf("reading the imported Scenario: %w", err)
		}
		spec, _ := m["spec"].(map[string]any)
		if spec == nil {
			return fmt.Errorf("the imported Scenario has no spec")
		}
		spec["market"] = map[string]any{"model": "off"}
		gates := map[string]any{"spotToSpotConsolidation": spotToSpot}
		if nodeRepair {
			gates["nodeRepair"] = true
		}
		if static {
			gates["staticCapacity"] = true
		}
		spec["karpenter"] = map[string]any{"featureGates": gates}
		nb, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		docs[i] = strings.TrimRight(string(nb), "\n")
		return os.WriteFile(out, []byte(strings.Join(docs, "\n---\n")), 0o644)
	}
	return fmt.Errorf("no Scenario document in %s", in)
}

// event is the part of an --events entry read here.
type event struct {
	T            float64                 `json:"t"`
	Kind         string                  `json:"kind"`
	Node         string                  `json:"node"`
	Owner        string                  `json:"owner"`
	Message      string                  `json:"message"`
	Phase        string                  `json:"phase"`
	Method       string                  `json:"method"`
	Reason       string                  `json:"reason"`
	Candidates   []struct{ Node string } `json:"candidates"`
	Replacements []struct {
		NodePool      string   `json:"nodePool"`
		CapacityType  string   `json:"capacityType"`
		InstanceTypes []string `json:"instanceTypes"`
	} `json:"replacements"`
}

// upstreamReason is upstream's spelling of our events' reasons.
var upstreamReason = map[string]string{"empty": "Empty", "drifted": "Drifted", "underutilized": "Underutilized", "expired": "Expired", "unhealthy": "Unhealthy"}

// readDecisions reads the decided commands and the expirations (a node
// tainted karpenter.sh/disrupted by no command started at that time).
func readDecisions(path string, c *Case) (*OursResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := &OursResult{Removed: map[string]time.Duration{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	startedAt := map[string]float64{} // node -> time its command started
	var tainted []event
	key := func(e event) string {
		var ns []string
		for _, c := range e.Candidates {
			ns = append(ns, c.Node)
		}
		sort.Strings(ns)
		return e.Method + "|" + strings.Join(ns, ",")
	}
	open := map[string]int{}
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		switch {
		case e.Kind == "disruptionCommand" && e.Owner == "karpenter":
			switch e.Phase {
			case "decided":
				d := Decision{Method: e.Method, Reason: upstreamReason[e.Reason], At: secs(e.T)}
				for _, cn := range e.Candidates {
					d.Candidates = append(d.Candidates, cn.Node)
				}
				sort.Strings(d.Candidates)
				for _, r := range e.Replacements {
					rep := Replacement{Pool: r.NodePool, CapacityType: r.CapacityType, Types: r.InstanceTypes, Cheapest: cheapest(c, r.InstanceTypes, r.CapacityType)}
					if e.Method == MethodStaticDrift {
						// A static NodeClaim has no instance types in KC's
						// decision (the AWS provider picks them at Create):
						// compared by pool and capacity type only.
						rep.Types, rep.Cheapest = nil, math.Inf(1)
					}
					d.Replacements = append(d.Replacements, rep)
				}
				if n := len(res.Decisions); e.Method == MethodStaticDrift && n > 0 && res.Decisions[n-1].Method == MethodStaticDrift && res.Decisions[n-1].At == d.At {
					// Upstream's StaticDrift returns all its commands of
					// a pass together: one decision.
					last := &res.Decisions[n-1]
					last.Candidates = append(last.Candidates, d.Candidates...)
					sort.Strings(last.Candidates)
					last.Replacements = append(last.Replacements, d.Replacements...)
					open[key(e)] = n - 1
					continue
				}
				open[key(e)] = len(res.Decisions)
				res.Decisions = append(res.Decisions, d)
				res.Started = append(res.Started, -1)
			case "started":
				if i, ok := open[key(e)]; ok {
					res.Started[i] = secs(e.T)
				}
				for _, cn := range e.Candidates {
					startedAt[cn.Node] = e.T
				}
			}
		case e.Kind == "nodeUpdated" && e.Owner == "karpenter" && strings.Contains(e.Message, "taint karpenter.sh/disrupted="):
			tainted = append(tainted, e)
		case e.Kind == "nodeRemoved":
			res.Removed[e.Node] = secs(e.T)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// Expirations: tainted with no command started then.
	var exp []Decision
	for _, e := range tainted {
		if t, ok := startedAt[e.Node]; ok && t <= e.T {
			continue
		}
		if n := len(exp); n > 0 && exp[n-1].At == secs(e.T) {
			exp[n-1].Candidates = append(exp[n-1].Candidates, e.Node)
			continue
		}
		exp = append(exp, Decision{Method: MethodExpiration, Reason: "Expired", Candidates: []string{e.Node}, At: secs(e.T)})
	}
	for _, d := range exp {
		sort.Strings(d.Candidates)
		// In time order with the commands.
		i := sort.Search(len(res.Decisions), func(i int) bool { return res.Decisions[i].At > d.At })
		res.Decisions = append(res.Decisions[:i], append([]Decision{d}, res.Decisions[i:]...)...)
		res.Started = append(res.Started[:i], append([]time.Duration{d.At}, res.Started[i:]...)...)
	}
	return res, nil
}

// cheapest is the price of the cheapest offering among types of the
// capacity types ("spot", "on-demand" or both, comma-separated).
func cheapest(c *Case, types []string, capacityTypes string) float64 {
	best := math.Inf(1)
	cts := strings.Split(capacityTypes, ",")
	for _, t := range types {
		for _, it := range c.Types {
			if it.Name != t {
				continue
			}
			for _, o := range it.Offerings {
				if containsString(cts, o.CapacityType) && o.Price < best {
					best = o.Price
				}
			}
		}
	}
	return best
}

func secs(t float64) time.Duration { return time.Duration(math.Round(t * 1e9)) }

// InFlightBefore lists the nodes that the commands before decision k
// hold when it is decided, at decidedAt, in a state dumped at dumpAt
// (just before decidedAt): the candidates (expired nodes too) of the
// commands started by decidedAt, the same instant included, that the dump
// still has (not removed by dumpAt). A command that started at the very
// instant of decision k shows in no dump (a dump comes after an instant's
// events, or before them), so its nodes are marked instead, as upstream's
// queue marks them.
func (r *OursResult) InFlightBefore(k int, dumpAt, decidedAt time.Duration) []string {
	var out []string
	for i, d := range r.Decisions {
		if i >= k || r.Started[i] < 0 || r.Started[i] > decidedAt {
			continue
		}
		for _, n := range d.Candidates {
			if t, gone := r.Removed[n]; gone && t <= dumpAt {
				continue
			}
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
