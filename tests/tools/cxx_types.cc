// cxx_types.cc -- mpi.h compiles as C++ and the MPI C++ types work with
// std:: types: std::complex<T> summed and multiplied, bool through the
// logical ops, sizes and names as the standard says (x86-64).  Prints
// "cxx_types: ok" once per rank; any mismatch exits 1 with the reason.
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static int fails = 0;
static void check(bool ok, const std::string &what)
{
    if (!ok) {
        std::fprintf(stderr, "cxx_types: %s\n", what.c_str());
        fails++;
    }
}

template <typename T> static void complex_ops(MPI_Datatype dt, int rank, int size)
{
    std::vector<std::complex<T>> in(3), out(3);
    for (int i = 0; i < 3; i++)
        in[i] = std::complex<T>(T(rank + 1), T(i));
    MPI_Allreduce(in.data(), out.data(), 3, dt, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        check(out[i] == std::complex<T>(T(size * (size + 1) / 2), T(i * size)), "MPI_SUM on std::complex");
    // the product of (r+1)i over the ranks: i^size * size!
    std::complex<T> z(T(0), T(rank + 1)), p;
    MPI_Allreduce(&z, &p, 1, dt, MPI_PROD, MPI_COMM_WORLD);
    std::complex<T> want(T(1), T(0));
    for (int r = 0; r < size; r++)
        want *= std::complex<T>(T(0), T(r + 1));
    check(std::abs(p - want) < T(1e-4), "MPI_PROD on std::complex");
    // not defined for complex: MPI_MAX is refused
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Allreduce(&z, &p, 1, dt, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS, "MPI_MAX on complex accepted");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct { MPI_Datatype dt; int size; const char *name; } types[] = {
        { MPI_CXX_BOOL, 1, "MPI_CXX_BOOL" },
        { MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX" },
        { MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX" },
        { MPI_CXX_LONG_DOUBLE_COMPLEX, 32, "MPI_CXX_LONG_DOUBLE_COMPLEX" },
    };
    for (auto &t : types) {
        int s = 0, len = 0;
        char name[MPI_MAX_OBJECT_NAME];
        MPI_Type_size(t.dt, &s);
        check(s == t.size, std::string(t.name) + " has size " + std::to_string(s));
        MPI_Type_get_name(t.dt, name, &len);
        check(std::string(name) == t.name, std::string(t.name) + " is named " + name);
    }
    check(sizeof(bool) == 1 && sizeof(std::complex<long double>) == 32, "C++ type sizes");

    complex_ops<float>(MPI_CXX_FLOAT_COMPLEX, rank, size);
    complex_ops<double>(MPI_CXX_DOUBLE_COMPLEX, rank, size);
    complex_ops<long double>(MPI_CXX_LONG_DOUBLE_COMPLEX, rank, size);

    bool mine[3] = { true, rank == 0, rank == 0 }, land[3], lor[3], lxor[3];
    MPI_Allreduce(mine, land, 3, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(mine, lor, 3, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(mine, lxor, 3, MPI_CXX_BOOL, MPI_LXOR, MPI_COMM_WORLD);
    check(land[0] && land[1] == (size == 1), "MPI_LAND on bool");
    check(lor[0] && lor[1], "MPI_LOR on bool");
    check(lxor[0] == (size % 2 == 1) && lxor[2], "MPI_LXOR on bool");

    // point to point with a std::vector<std::complex<double>>
    std::vector<std::complex<double>> v(4, std::complex<double>(rank, -rank));
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv_replace(v.data(), 4, MPI_CXX_DOUBLE_COMPLEX, next, 0, prev, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    check(v[3] == std::complex<double>(prev, -prev), "Sendrecv of std::complex<double>");

    MPI_Finalize();
    if (fails)
        return 1;
    std::printf("cxx_types: ok\n");
    return 0;
}
