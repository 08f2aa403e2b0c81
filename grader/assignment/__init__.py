"""An assignment bundle: its YAML (validated), its checks, reference and catalogue of known mistakes."""
