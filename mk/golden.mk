# Golden numerics (docs/golden.md), included from the Makefile.
#   make golden        regenerate golden/data/*.gold from golden/manifest,
#                      byte for byte (MPFR; about two seconds)
#   make check-golden  regenerate into a temporary directory and compare
#                      with the committed files: a missing, extra or
#                      differing file is stale (`make check` runs it)
.PHONY: golden check-golden

golden: $(PLUMB)
	$(PLUMB) golden gen -q --manifest golden/manifest --dir golden/data

check-golden: $(PLUMB)
	@tmp=$$(mktemp -d) || exit 1; \
	if ! $(PLUMB) golden gen -q --manifest golden/manifest --dir "$$tmp" > /dev/null; then \
	  rm -rf "$$tmp"; echo "check-golden: generating the goldens failed"; exit 1; fi; \
	if diff -r "$$tmp" golden/data > "$$tmp.diff" 2>&1; then \
	  rm -rf "$$tmp" "$$tmp.diff"; echo "check-golden: golden/data is current with golden/manifest"; \
	else \
	  sed 's|'"$$tmp"'|(regenerated)|g' "$$tmp.diff"; rm -rf "$$tmp" "$$tmp.diff"; \
	  echo "check-golden: golden/data is stale: run 'make golden' and commit it"; exit 1; fi
