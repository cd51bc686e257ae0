// The harness of docs/polyglot.md's go.mod lines: a team's own module, in a folder beside a
// checkout of groundwire named groundwire (go/test.sh builds it so, offline).
module example.com/team

go 1.19

// <snippet>
