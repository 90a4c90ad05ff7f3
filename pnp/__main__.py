from pnp.cli import main

main()
