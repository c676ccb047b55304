// The `handoff` command line. Subcommands are added by the core issues.
process.stdout.write('handoff: no commands yet\n');
