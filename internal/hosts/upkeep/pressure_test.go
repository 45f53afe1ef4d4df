package upkeep

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/workflows/contract"
)

func TestSleepFirstTakesTheLongestDozingUntilUnderTheLine(t *testing.T) {
	t0 := time.Unix(1000, 0)
	v := func(name string, dozedAgo time.Duration) contract.View {
		return contract.View{Name: name, DozedAt: t0.Add(-dozedAgo), Container: &contract.Container{ID: "c-" + name}}
	}
	dozing := []contract.View{v("new", time.Minute), v("oldest", time.Hour), v("mid", 10*time.Minute),
		{Name: "gone", DozedAt: t0.Add(-2 * time.Hour)}} // no container: nothing to free
	mem := func(id string) (int64, bool) {
		if id == "c-elsewhere" {
			return 0, false
		}
		return 256, true
	}
	require.Equal(t, []string{"oldest"}, sleepFirst(dozing, mem, 1000, 800))
	require.Equal(t, []string{"oldest", "mid"}, sleepFirst(dozing, mem, 1000, 600))
	require.Equal(t, []string{"oldest", "mid", "new"}, sleepFirst(dozing, mem, 5000, 100), "all of them when that is not enough")
	require.Empty(t, sleepFirst(dozing, mem, 800, 800), "not under pressure")
}
