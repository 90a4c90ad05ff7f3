"""render: imposed pages and piece layouts -> PDF bytes -> files. The only stage that uses
reportlab's canvas or writes output."""
