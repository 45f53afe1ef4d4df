package activities

import (
	"context"
	"reflect"
	"testing"

	"github.com/berthdev/berth/workflows/contract"
)

// The workflow schedules activities by the names in the contract, and
// recorded histories hold those names: each must stay the name of a method
// of Activities (what RegisterActivity registers) taking and returning the
// contract's types.
func TestContractActivityNamesAreMethods(t *testing.T) {
	ctx := reflect.TypeFor[context.Context]()
	errT := reflect.TypeFor[error]()
	want := map[string]struct{ in, out reflect.Type }{
		contract.ActivityBoot:          {reflect.TypeFor[contract.BootInput](), reflect.TypeFor[contract.BootResult]()},
		contract.ActivityBootWarm:      {reflect.TypeFor[contract.BootInput](), reflect.TypeFor[contract.BootResult]()},
		contract.ActivityStop:          {reflect.TypeFor[contract.StopInput](), reflect.TypeFor[contract.StopResult]()},
		contract.ActivitySnapshot:      {reflect.TypeFor[contract.StopInput](), reflect.TypeFor[contract.SnapshotResult]()},
		contract.ActivityDestroy:       {reflect.TypeFor[contract.DestroyInput](), nil},
		contract.ActivityWatch:         {reflect.TypeFor[contract.Container](), reflect.TypeFor[contract.Exit]()},
		contract.ActivityCheckIdle:     {reflect.TypeFor[contract.Container](), reflect.TypeFor[contract.Idle]()},
		contract.ActivityApplyEnv:      {reflect.TypeFor[contract.EnvInput](), nil},
		contract.ActivityApplyEgress:   {reflect.TypeFor[contract.EgressInput](), nil},
		contract.ActivityApplyServices: {reflect.TypeFor[contract.ServicesInput](), nil},
		contract.ActivityArchiveEvents: {reflect.TypeFor[contract.ArchiveEventsInput](),
			reflect.TypeFor[contract.ArchiveEventsResult]()},
		contract.ActivityDoze:      {reflect.TypeFor[contract.DozeInput](), reflect.TypeFor[contract.DozeResult]()},
		contract.ActivityThaw:      {reflect.TypeFor[contract.DozeInput](), nil},
		contract.ActivityDozeLocal: {reflect.TypeFor[contract.DozeInput](), reflect.TypeFor[contract.DozeResult]()},
		contract.ActivityThawLocal: {reflect.TypeFor[contract.DozeInput](), reflect.TypeFor[contract.DozeResult]()},
		contract.ActivityStopLocal: {reflect.TypeFor[contract.StopInput](), reflect.TypeFor[contract.StopResult]()},
	}
	if len(want) != len(contract.ActivityNames) {
		t.Fatalf("contract.ActivityNames has %d names, this test knows %d", len(contract.ActivityNames), len(want))
	}
	acts := reflect.TypeFor[*Activities]()
	for _, name := range contract.ActivityNames {
		m, ok := acts.MethodByName(name)
		if !ok {
			t.Errorf("activity %q is not a method of *Activities", name)
			continue
		}
		w := want[name]
		outs := []reflect.Type{errT}
		if w.out != nil {
			outs = []reflect.Type{w.out, errT}
		}
		ft := m.Type // receiver first
		if ft.NumIn() != 3 || ft.In(1) != ctx || ft.In(2) != w.in || ft.NumOut() != len(outs) {
			t.Errorf("activity %q has signature %v", name, ft)
			continue
		}
		for i, o := range outs {
			if ft.Out(i) != o {
				t.Errorf("activity %q returns %v, want %v", name, ft.Out(i), o)
			}
		}
	}
}
