/* libcuzk.so is made of the library's objects (CMakeLists.txt, cuzk_shared);
 * a target needs a source of its own. */
typedef int cuzk_shared_library_has_no_code_of_its_own;
