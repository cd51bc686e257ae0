// The harness of docs/polyglot.md's recipe for Google's official Node clients (see offsets.ts
// beside it): the recipe is whole, imports included.
// <snippet>
