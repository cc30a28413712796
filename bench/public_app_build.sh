# Sourced by the bench scripts: builds one app of a Halide v14 source tree the way ktune and
# a user's build each take a Generator, into WORK: lib<APP>.so (the Generator linked to
# libHalide, for `ktune --generator`) and <APP>.gen (the same Generator with GenGen's main(),
# for builds through the plugin). Nothing of the app is copied into ktune.
#   build_public_app APP HALIDE_SRC WORK
build_public_app() {
  local app=$1 halide_src=$2 work=$3
  local src="$halide_src/apps/$app/${app}_generator.cpp"
  if [ ! -f "$src" ]; then
    echo "$src not found: the Halide source tree must be tag v14.0.0 with its apps/ folder" >&2
    return 2
  fi
  mkdir -p "$work"
  if [ ! -f "$work/lib$app.so" ] || [ "$src" -nt "$work/lib$app.so" ]; then
    echo "== building $app from $src" >&2
    g++ -O2 -std=c++17 -fPIC -shared -I/usr/include/halide14 -I/usr/src/halide14 "$src" -o "$work/lib$app.so" -lHalide14
    g++ -O2 -std=c++17 -I/usr/include/halide14 -I/usr/src/halide14 "$src" /usr/src/halide14/GenGen.cpp -o "$work/$app.gen" \
      -lHalide14 -lpthread -ldl
  fi
}
