# weak_strong_pairs.awk -v lib=LIB -v p=P|p: reads "<nm type> <name>" lines
# of a library's MPI entry points and prints one line per problem: each
# <p>MPI_x (C: PMPI_x; Fortran: pmpi_x_) must be a strong T with a weak
# twin without the prefix letter, each other name weak with a strong twin.
# Shared by tests/pmpi/check_symbols.sh and tests/fortran/check_symbols.sh.
{ type[$2] = $1; names[NR] = $2 }
END {
  for (i = 1; i <= NR; i++) {
    name = names[i]
    if (substr(name, 1, 1) == p) {
      twin = substr(name, 2)
      if (type[name] != "T") print name " is '" type[name] "' in " lib ", want a strong T"
      if (type[twin] != "W") print name " has no weak " twin " beside it in " lib
    } else {
      if (type[name] != "W") print name " is '" type[name] "' in " lib ", want a weak W"
      if (type[p name] != "T") print name " has no " p substr(name, 1, 3) "_ twin in " lib
    }
  }
}
