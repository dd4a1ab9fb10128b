# make install / make uninstall (docs/install.md). Included from the
# Makefile, so LIB_OBJS, LIB, PLUMB, LDLIBS and BUILD are its own.
#   make install PREFIX=/usr/local DESTDIR=   (the defaults)
# installs:
#   $(PREFIX)/bin/plumb
#   $(PREFIX)/lib/libplumb.a, libplumb.so.$(SO_VERSION) (soname
#       libplumb.so.$(SO_MAJOR)) and its two symlinks
#   $(PREFIX)/include/plumb/*.h
#   $(PREFIX)/lib/pkgconfig/plumb.pc
#   $(PREFIX)/share/man/man1/plumb.1            (from every --help)
#   $(PREFIX)/share/bash-completion/completions/plumb
# DESTDIR is prepended to every path (staged installs, packages); PREFIX is
# what plumb.pc records. `make uninstall` removes exactly those files.
PREFIX        ?= /usr/local
DESTDIR       ?=
BINDIR        ?= $(PREFIX)/bin
LIBDIR        ?= $(PREFIX)/lib
INCLUDEDIR    ?= $(PREFIX)/include
MANDIR        ?= $(PREFIX)/share/man
PKGCONFIGDIR  ?= $(LIBDIR)/pkgconfig
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

# The version comes from the one place the program prints it from.
PLUMB_VERSION := $(shell sed -n 's/^\#define PLUMB_VERSION_STRING "\(.*\)"/\1/p' include/plumb/core.h)
SO_MAJOR      := 0
SO_VERSION    := $(PLUMB_VERSION)
SHLIB         := $(BUILD)/libplumb.so.$(SO_VERSION)
PLUMB_PC      := $(BUILD)/plumb.pc
PLUMB_MAN     := $(BUILD)/plumb.1
PLUMB_COMPL   := $(BUILD)/plumb.bash
INSTALL_HDRS  := $(sort $(wildcard include/plumb/*.h))
# dtype.h and ops.h expand the tables of ir/ (X-macros); installed beside
# them, with the headers' '#include "../../ir/X.def"' rewritten to "X.def".
INSTALL_DEFS  := ir/dtypes.def ir/ops.def

.PHONY: install uninstall install-files shared
# The shared library is built by `make shared` and by install (and so by
# make check, whose tests/install/test_install.sh installs), not by `all`.
shared: $(SHLIB)

# The objects are already position independent (-fPIC in ALL_CFLAGS);
# --no-undefined makes a symbol the library uses but does not define a
# link error here rather than a load error in a user's program.
$(SHLIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libplumb.so.$(SO_MAJOR) -Wl,--no-undefined $(LDFLAGS) \
	  -o $@ $(LIB_OBJS) $(LDLIBS)

$(PLUMB_PC): plumb.pc.in include/plumb/core.h mk/install.mk
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(PLUMB_VERSION)|g' \
	    -e 's|@LIBS_PRIVATE@|$(LDLIBS)|g' plumb.pc.in > $@

$(PLUMB_MAN): $(PLUMB) tools/gen_man.sh cli/commands.def
	sh tools/gen_man.sh $(PLUMB) > $@.tmp && mv $@.tmp $@

$(PLUMB_COMPL): $(PLUMB) tools/gen_completion.sh cli/commands.def
	sh tools/gen_completion.sh $(PLUMB) > $@.tmp && mv $@.tmp $@

# plumb.pc records PREFIX, so it is rebuilt for every install (a previous
# build may have used another PREFIX).
install: $(LIB) $(SHLIB) $(PLUMB) $(PLUMB_MAN) $(PLUMB_COMPL)
	@rm -f $(PLUMB_PC)
	@$(MAKE) --no-print-directory BUILD=$(BUILD) PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) \
	  INCLUDEDIR=$(INCLUDEDIR) $(PLUMB_PC)
	@$(MAKE) --no-print-directory BUILD=$(BUILD) install-files

# Each directory is checked before anything is copied into it, so an
# unwritable prefix fails naming the path, not with a half install.
install-files:
	@for d in "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(INCLUDEDIR)/plumb" \
	          "$(DESTDIR)$(PKGCONFIGDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(COMPLETIONDIR)"; do \
	  mkdir -p "$$d" 2> /dev/null && [ -w "$$d" ] || \
	    { echo "make install: cannot write to '$$d' (set PREFIX= or DESTDIR= to a writable folder)" >&2; exit 1; }; \
	done
	install -m 755 $(PLUMB) "$(DESTDIR)$(BINDIR)/plumb"
	install -m 644 $(LIB) "$(DESTDIR)$(LIBDIR)/libplumb.a"
	install -m 755 $(SHLIB) "$(DESTDIR)$(LIBDIR)/libplumb.so.$(SO_VERSION)"
	ln -sf libplumb.so.$(SO_VERSION) "$(DESTDIR)$(LIBDIR)/libplumb.so.$(SO_MAJOR)"
	ln -sf libplumb.so.$(SO_MAJOR) "$(DESTDIR)$(LIBDIR)/libplumb.so"
	install -m 644 $(INSTALL_DEFS) "$(DESTDIR)$(INCLUDEDIR)/plumb/"
	for h in $(INSTALL_HDRS); do \
	  sed 's|^\(#include "\)\.\./\.\./ir/\([a-z_]*\.def"\)|\1\2|' "$$h" > "$(DESTDIR)$(INCLUDEDIR)/plumb/$${h##*/}" && \
	  chmod 644 "$(DESTDIR)$(INCLUDEDIR)/plumb/$${h##*/}" || exit 1; \
	done
	install -m 644 $(PLUMB_PC) "$(DESTDIR)$(PKGCONFIGDIR)/plumb.pc"
	install -m 644 $(PLUMB_MAN) "$(DESTDIR)$(MANDIR)/man1/plumb.1"
	install -m 644 $(PLUMB_COMPL) "$(DESTDIR)$(COMPLETIONDIR)/plumb"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/plumb" \
	      "$(DESTDIR)$(LIBDIR)/libplumb.a" "$(DESTDIR)$(LIBDIR)/libplumb.so" \
	      "$(DESTDIR)$(LIBDIR)/libplumb.so.$(SO_MAJOR)" "$(DESTDIR)$(LIBDIR)/libplumb.so.$(SO_VERSION)" \
	      "$(DESTDIR)$(PKGCONFIGDIR)/plumb.pc" "$(DESTDIR)$(MANDIR)/man1/plumb.1" \
	      "$(DESTDIR)$(COMPLETIONDIR)/plumb"
	rm -f $(addprefix "$(DESTDIR)$(INCLUDEDIR)/plumb/,$(addsuffix ",$(notdir $(INSTALL_HDRS) $(INSTALL_DEFS))))
	-rmdir "$(DESTDIR)$(INCLUDEDIR)/plumb" 2> /dev/null
