package runtime

import "testing"

func TestIDTakesIntegersOnlyWhereTheInterfaceDoes(t *testing.T) {
	d := NewDecoder([]byte(`[12, "u_1", 7]`))
	d.Array()
	var got []string
	for d.Element() {
		got = append(got, d.ID(true))
	}
	if err := d.Finish(); err != nil || len(got) != 3 || got[0] != "12" || got[1] != "u_1" {
		t.Fatalf("got %q, %v", got, err)
	}
	d = NewDecoder([]byte(`12`))
	d.ID(false)
	if d.Err() == nil {
		t.Fatal("a number was taken for an id that is only ever a string")
	}
}

func TestMoveLastMemberPutsTheTagBackAtItsPlace(t *testing.T) {
	for _, c := range []struct {
		at   int
		want string
	}{
		{0, `{"type":"x","a":1,"b":{"c":[1,"}\","]},"d":"e"}`},
		{1, `{"a":1,"type":"x","b":{"c":[1,"}\","]},"d":"e"}`},
		{2, `{"a":1,"b":{"c":[1,"}\","]},"type":"x","d":"e"}`},
		{3, `{"a":1,"b":{"c":[1,"}\","]},"d":"e","type":"x"}`},
		{9, `{"a":1,"b":{"c":[1,"}\","]},"d":"e","type":"x"}`},
	} {
		var e Encoder
		e.BeginObject()
		mark := e.Len()
		e.Name("a")
		e.Int64(1)
		e.Name("b")
		e.Raw([]byte(`{"c":[1,"}\","]}`))
		e.Name("d")
		e.String("e")
		e.Name("type")
		e.String("x")
		e.MoveLastMember(mark, c.at)
		e.EndObject()
		if got := string(e.Bytes()); got != c.want {
			t.Errorf("at %d: got %s, want %s", c.at, got, c.want)
		}
	}
}

func TestListedMemberNamesTheField(t *testing.T) {
	if got := ListedMember("id").Error(); got != "`id` is a listed property: set it through its field" {
		t.Fatal(got)
	}
}
