// The entry points that mlir-opt's --load-dialect-plugin and
// --load-pass-plugin look up. mlir-opt already registers every upstream
// dialect and pass, so the plugin adds Strata's alone.

#include "strata/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Strata", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            strata::registerStrataDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Strata", LLVM_VERSION_STRING,
          [] { strata::registerStrataPasses(); }};
}
