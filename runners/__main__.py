from runners.cli import run

run()
