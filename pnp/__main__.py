from pnp.cli import run

run()
