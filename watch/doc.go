// Package watch reruns scenarios when the files they depend on change:
// the loop behind "agenteval run --watch", the way vitest and jest rerun
// the tests of the files being edited.
//
// A scenario depends on three files (Files): the scenario file itself,
// its cassette (<CassetteDir>/<scenario path>.yaml) and its golden
// transcript (<GoldenDir>/<scenario path>.golden), whether or not the
// last two exist yet; a command agent's scenario depends on its program
// too (Program: the first relative argument of agent.command that names
// an existing file, such as ../agent.mjs in [node, ../agent.mjs]). Loop
// runs every scenario once, then, for each batch of changed paths, loads
// the scenarios afresh (a change may have renamed, retagged or broken
// one) and runs those that depend on a changed file, plus any scenario
// that was not there before.
//
// A batch ends when the paths have been quiet for Config.Debounce, so a
// burst of writes (a git checkout that removes a golden file and writes
// it back) is rerun once, in its end state, and never reported in a
// state it passed through ("golden file missing"). The quiet period is
// timed by Config.After, a clock tests inject.
//
// The changes come from a channel of paths, so that tests drive Loop
// with events and a clock of their own, without sleeps; FSEvents feeds it
// from the file system with fsnotify, watching folders (recursively) rather
// than files, since editors often save by writing a new file and renaming
// it over the old one. Paths are compared cleaned and absolute.
package watch
