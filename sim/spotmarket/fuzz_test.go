package spotmarket

import (
	"bytes"
	"testing"
)

// FuzzReadTrace: a trace reader must reject bad input with a message, never
// panic, and what it accepts must be in time order.
func FuzzReadTrace(f *testing.F) {
	f.Add([]byte("time,pool,kind,value\n0s,c5.large/us-east-1a/spot,price,0.03\n30m,c5.large/us-east-1a,state,exhausted\n31m,c5.large/us-east-1a/spot,interrupt,0.8\n"))
	f.Add([]byte(`{"time": "10m", "pool": "m5.large/us-east-1b", "kind": "rebalance", "value": 0.5}` + "\n"))
	f.Add([]byte("# comment\ntime,pool,kind\n5,c5.large/us-east-1a/spot,interrupt\n"))
	f.Add([]byte("time,pool,kind,value\n0s,c5.large/us-east-1a,price,1e300\n"))
	f.Add([]byte("time,pool,kind,value\n2m,x/y,price,1\n1m,x/y,price,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace(bytes.NewReader(data), "t.csv")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error message")
			}
			return
		}
		for i := 1; i < len(tr.Events); i++ {
			if tr.Events[i].At < tr.Events[i-1].At {
				t.Fatalf("accepted a trace out of order: %v then %v", tr.Events[i-1].At, tr.Events[i].At)
			}
		}
	})
}
