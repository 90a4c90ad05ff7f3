"""products: what pnp makes besides the imposed sheets: the contents sheet and assembly page, PNG
and Tabletop Simulator exports, previews, the calibration sheet, new-game scaffolds and printer
profiles."""
