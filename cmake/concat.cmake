# Writes OUT: the FILES joined in the order given, byte for byte (no separators added). Used to
# build browser/page/affordances.js from its parts (src/browser/page/affordances/NN-*.js).
set(body "")
foreach(f ${FILES})
  file(READ ${f} part)
  string(APPEND body "${part}")
endforeach()
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
