/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The entry point of the layer_check_<folder> programs (CMakeLists.txt):
 * they exist only to be linked, every object of one src/ folder with the
 * folders below it, so that a call into a higher folder is a link error.
 * They are never run.
 */
int main(void)
{
    return 0;
}
