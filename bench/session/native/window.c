/* Sliding-window sums over an int array: the C twin of more_itertools.windowed. */
#include <stdio.h>
#include <stdlib.h>

static long window_sum(const int *values, size_t start, size_t width)
{
    long total = 0;
    for (size_t i = start; i < start + width; i++)
        total += values[i];
    return total;
}

int main(void)
{
    int values[] = {3, 1, 4, 1, 5, 9, 2, 6};
    size_t count = sizeof values / sizeof values[0];
    size_t width = 3;
    for (size_t start = 0; start + width <= count; start++)
        printf("%zu: %ld\n", start, window_sum(values, start, widht));
    return EXIT_SUCCESS;
}
