import sys

try:
    from tfmigrate.cli import main
except KeyboardInterrupt:  # Ctrl-C while the CLI itself is still being imported: nothing has started yet
    sys.stderr.write("tfmigrate: interrupted\n")
    sys.exit(130)

main()
