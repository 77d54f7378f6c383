/*
 * errors_user.c -- user error classes, codes and strings (MPI_Add_error_*,
 * MPI-4.1 MPI_Remove_error_*), MPI_Error_class/Error_string answering for
 * them, the MPI_LASTUSEDCODE attribute, and the bad arguments (under
 * MPI_ERRORS_RETURN).  Also adds a class before MPI_Init, which the standard
 * allows.
 */
#include "check.h"

int main(int argc, char **argv)
{
    int early = -1, cls = -1, code = -1, code2 = -1, len = 0, flag = 0, *last = NULL, got = -1;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_MPI(MPI_Add_error_class(&early));
    CHECK(early > MPI_ERR_LASTCODE, "class added before MPI_Init is %d", early);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK_MPI(MPI_Add_error_class(&cls));
    CHECK(cls > early, "second class %d after %d", cls, early);
    CHECK_MPI(MPI_Add_error_code(cls, &code));
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    CHECK(code > cls && code2 > code, "codes %d %d after class %d", code, code2, cls);
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == code2, "MPI_LASTUSEDCODE is %d, want %d", flag ? *last : -1, code2);

    CHECK_MPI(MPI_Error_class(code, &got));
    CHECK(got == cls, "class of code %d is %d, want %d", code, got, cls);
    CHECK_MPI(MPI_Error_class(cls, &got));
    CHECK(got == cls, "class of class %d is %d", cls, got);
    CHECK_MPI(MPI_Error_class(code2, &got));
    CHECK(got == MPI_ERR_ARG, "class of code %d is %d, want MPI_ERR_ARG", code2, got);

    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(len == 0 && text[0] == 0, "string of a code without one is \"%s\"", text);
    CHECK_MPI(MPI_Add_error_string(code, "the widget broke"));
    CHECK_MPI(MPI_Add_error_string(cls, "widget errors"));
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(!strcmp(text, "the widget broke") && len == 16, "string is \"%s\" (%d)", text, len);
    CHECK_MPI(MPI_Add_error_string(code, "replaced"));
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(!strcmp(text, "replaced"), "replaced string is \"%s\"", text);
    CHECK_MPI(MPI_Error_string(cls, text, &len));
    CHECK(!strcmp(text, "widget errors"), "class string is \"%s\"", text);

    /* A user code raised through the error handler comes back unchanged. */
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS, "call_errhandler failed");

    /* bad arguments */
    CHECK(MPI_Add_error_code(code, &got) == MPI_ERR_ARG, "a code accepted as a class");
    CHECK(MPI_Add_error_code(99999, &got) == MPI_ERR_ARG, "class 99999 accepted");
    CHECK(MPI_Add_error_string(MPI_ERR_RANK, "x") == MPI_ERR_ARG, "predefined string changed");
    CHECK(MPI_Add_error_string(99999, "x") == MPI_ERR_ARG, "string for unknown code accepted");
    CHECK(MPI_Add_error_string(code, NULL) == MPI_ERR_ARG, "NULL string accepted");
    CHECK(MPI_Add_error_class(NULL) == MPI_ERR_ARG, "NULL errorclass accepted");
    CHECK(MPI_Remove_error_class(cls) == MPI_ERR_ARG, "class with a code removed");
    CHECK(MPI_Remove_error_class(code) == MPI_ERR_ARG, "a code removed as a class");
    CHECK(MPI_Remove_error_code(cls) == MPI_ERR_ARG, "a class removed as a code");
    CHECK(MPI_Remove_error_code(MPI_ERR_ARG) == MPI_ERR_ARG, "a predefined class removed");
    CHECK(MPI_Error_class(99999, &got) == MPI_ERR_ARG, "class of 99999 answered");

    /* removal, MPI-4.1 */
    CHECK(MPI_Remove_error_code(code) == MPI_ERR_ARG, "code with a string removed");
    CHECK(MPI_Error_class(code, &got) == MPI_SUCCESS && got == cls, "code refused removal lost its class (%d)", got);
    CHECK_MPI(MPI_Remove_error_string(code));
    CHECK_MPI(MPI_Error_string(code, text, &len));
    CHECK(len == 0, "removed string is still \"%s\"", text);
    CHECK_MPI(MPI_Remove_error_code(code2));
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(*last == code, "MPI_LASTUSEDCODE after removing the top code is %d, want %d", *last, code);
    CHECK(MPI_Error_class(code2, &got) == MPI_ERR_ARG, "removed code %d still has class %d", code2, got);
    CHECK_MPI(MPI_Remove_error_code(code));
    CHECK_MPI(MPI_Remove_error_class(cls));
    CHECK(MPI_Remove_error_string(cls) == MPI_ERR_ARG, "string of a removed class removed");
    MPI_Finalize();
    CHECK_MPI(MPI_Remove_error_class(early));
    printf("errors_user: user classes, codes and strings work\n");
    return 0;
}
